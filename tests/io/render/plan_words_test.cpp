// plan's next steps are chosen in the core as codes; their words are chosen here.
#include <catch2/catch.hpp>

#include "io/render/plan_words.hpp"

using namespace gpuplan;
using gpuplan::io::next_step_text;

TEST_CASE("plan's next steps in words, one per code", "[render][plan]") {
  CHECK(next_step_text({NextStep::measure_baseline, "l40s", Method::lora}) ==
        "run a 50-step baseline on one l40s with these settings and pass its measured MFU as --mfu to re-plan");
  CHECK(next_step_text({NextStep::try_adapters, {}, Method::full}) ==
        "full fine-tuning won on cost here; still try LoRA/QLoRA on the same data if quality allows");
  CHECK(next_step_text({NextStep::start_from_method, {}, Method::qlora}) ==
        "start from qlora; move to full fine-tuning only if your evaluation needs it");
  CHECK(next_step_text({NextStep::checkpointing_cost, {}, Method::lora}) ==
        "activation checkpointing is on: it costs ~1/3 more compute but lets the micro-batch fit");
  CHECK(next_step_text({NextStep::scale_out_later, {}, Method::lora}) ==
        "scale out only after the single-GPU run is well utilised; the plan's scaling efficiency assumes the sheet's links");
  CHECK(next_step_text({NextStep::compare_providers, {}, Method::lora}) ==
        "compare providers on identical work: gpuplan compare with these settings");
}

TEST_CASE("plan's settings keep the names JSON and tables print", "[render][plan]") {
  CHECK(std::string(to_string(PlanSetting::method)) == "method");
  CHECK(std::string(to_string(PlanSetting::precision)) == "precision");
  CHECK(std::string(to_string(PlanSetting::optimizer)) == "optimizer");
  CHECK(std::string(to_string(PlanSetting::checkpointing)) == "checkpointing");
  CHECK(std::string(to_string(PlanSetting::sharding)) == "sharding");
  CHECK(std::string(to_string(PlanSetting::pricing)) == "pricing");
}
