#include "io/render/plan_words.hpp"

namespace gpuplan::io {

std::string next_step_text(const PlanStep& s) {
  switch (s.step) {
    case NextStep::measure_baseline:
      return "run a 50-step baseline on one " + s.gpu + " with these settings and pass its measured MFU as --mfu to re-plan";
    case NextStep::try_adapters: return "full fine-tuning won on cost here; still try LoRA/QLoRA on the same data if quality allows";
    case NextStep::start_from_method:
      return "start from " + std::string(to_string(s.method)) + "; move to full fine-tuning only if your evaluation needs it";
    case NextStep::checkpointing_cost:
      return "activation checkpointing is on: it costs ~1/3 more compute but lets the micro-batch fit";
    case NextStep::scale_out_later:
      return "scale out only after the single-GPU run is well utilised; the plan's scaling efficiency assumes the sheet's links";
    case NextStep::compare_providers: return "compare providers on identical work: gpuplan compare with these settings";
  }
  return "";
}

}  // namespace gpuplan::io
