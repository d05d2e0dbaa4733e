// --node-shape and --network: the link figures come from the catalog's GPUs, the shape replaces an
// offer's links, and an 8-card PCIe box is never slower per step than the same 8 cards as 8
// machines on 10 GbE (nor faster than its compute floor).
#include <catch2/catch.hpp>

#include <vector>

#include "core/test_models.hpp"
#include "gpuplan/evaluate.hpp"
#include "gpuplan/node_shape.hpp"

using namespace gpuplan;

namespace {

Gpu card(const char* id, const char* kind, double gbps, double bf16_tflops, GpuForm form) {
  Gpu g;
  g.id = id;
  g.form = form;
  g.memory_bytes = 24ull << 30;
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = bf16_tflops;
  g.memory_bandwidth_gbps = 1008;
  g.interconnect_kind = kind;
  g.interconnect_gbps = gbps;
  return g;
}

std::vector<Gpu> catalog_gpus() {
  return {card("rtx-4090", "pcie4", 32, 165.2, GpuForm::consumer), card("rtx-5090", "pcie5", 64, 209.5, GpuForm::consumer),
          card("h100-sxm", "nvlink4", 450, 989, GpuForm::datacentre), card("mi250x", "infinity-fabric", 400, 383, GpuForm::datacentre),
          card("mi300x", "infinity-fabric", 448, 1307, GpuForm::datacentre)};
}

}  // namespace

TEST_CASE("a named link's figure is the one the catalog's GPUs of that kind list", "[time][node_shape]") {
  const auto gpus = catalog_gpus();
  CHECK(link_kind_gbps(gpus, "pcie4", nullptr) == Approx(32));
  CHECK(link_kind_gbps(gpus, "nvlink4", &gpus[0]) == Approx(450));  // a 4090 told it has NVLink 4 gets NVLink 4's figure
  // Infinity Fabric: the lowest listed for a GPU of another kind, the GPU's own when it has it.
  CHECK(link_kind_gbps(gpus, "infinity-fabric", nullptr) == Approx(400));
  CHECK(link_kind_gbps(gpus, "infinity-fabric", &gpus[4]) == Approx(448));
  CHECK_FALSE(link_kind_gbps(gpus, "nvlink9", nullptr).has_value());
  CHECK(link_kinds(gpus) == std::vector<std::string>{"infinity-fabric", "nvlink4", "pcie4", "pcie5"});
}

TEST_CASE("a stated node shape replaces the offer's GPUs per node, link and network", "[time][node_shape]") {
  const auto gpus = catalog_gpus();
  const Gpu& mi300x = gpus[4];
  const Links offer{1, 32, 0, 0};
  NodeShape s;
  CHECK(shaped_links(offer, s, mi300x).gpus_per_node == 1);  // nothing stated: the offer's
  s.gpus_per_node = 8;
  s.link = "infinity-fabric";
  s.link_gbps = 400;  // the catalog's lowest; the MI300X's own 448 wins
  s.network_gbps = 100;
  const Links l = shaped_links(offer, s, mi300x);
  CHECK(l.gpus_per_node == 8);
  CHECK(l.intra_node_gbps == Approx(448));
  CHECK(l.inter_node_gbps == Approx(12.5));  // 100 Gb/s = 12.5 GB/s
  CHECK_FALSE(network_assumed(8, l));
  CHECK(network_assumed(16, Links{8, 32, 0, 0}));
  CHECK_FALSE(network_assumed(16, Links{8, 32, 12.5, 0}));
}

TEST_CASE("8 PCIe cards in one box are never slower per step than 8 machines on 10 GbE, nor faster than compute",
          "[time][node_shape][property]") {
  const Gpu gpu = catalog_gpus()[0];
  int checked = 0;
  for (const ModelArch& m : {testing::llama32_3b(), testing::llama31_8b()}) {
    const ParamCounts pc = count_params(m);
    for (Method method : {Method::full, Method::lora, Method::qlora})
      for (Sharding sharding : {Sharding::ddp, Sharding::zero2, Sharding::fsdp})
        for (int tp : {1, 2, 8})
          for (int mb : {1, 4}) {
            Workload w;
            w.method = method;
            w.gpus = 8;
            w.micro_batch = mb;
            w.seq_len = 2048;
            w.tensor_parallel = tp;
            w.sharding = sharding;
            if (parallel_layout_problem(m, w) != nullptr) continue;
            const StepTime box = estimate_step_time(m, pc, w, 2, gpu, Links{8, 32, 0, 0});
            const StepTime apart = estimate_step_time(m, pc, w, 2, gpu, Links{1, 32, 0, 0});  // 0 = 10 GbE
            INFO(m.id << " method " << static_cast<int>(method) << " sharding " << static_cast<int>(sharding) << " tp " << tp << " mb " << mb);
            CHECK(box.step_seconds <= apart.step_seconds * (1 + 1e-12));
            CHECK(box.step_seconds >= box.compute_seconds * (1 - 1e-12));
            CHECK(apart.step_seconds >= apart.compute_seconds * (1 - 1e-12));
            ++checked;
          }
  }
  CHECK(checked > 50);
}

TEST_CASE("evaluation times a 1-GPU offer on the stated shape and flags the assumed 10 GbE otherwise", "[time][node_shape]") {
  const Gpu gpu = catalog_gpus()[0];
  const ModelArch m = testing::llama32_3b();
  const ParamCounts pc = count_params(m);
  Offer offer;
  offer.id = "rtx-4090-x1";
  offer.provider = "p";
  offer.gpu = gpu.id;
  offer.gpus = 1;
  offer.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 0.5;
  Provider provider;
  provider.id = "p";
  Workload w;
  w.method = Method::lora;
  w.gpus = 8;
  w.micro_batch = 1;
  w.seq_len = 2048;
  RunSpec run;
  run.gpus_fixed = true;
  run.steps = 10;
  const OfferEvaluation apart = evaluate_offer(m, pc, w, gpu, offer, provider, run);
  REQUIRE(apart.priced());
  CHECK(apart.network_assumed);
  CHECK(job_links(apart.workload, offer, gpu, run).gpus_per_node == 1);
  run.node_shape.gpus_per_node = 8;
  run.node_shape.link = "pcie4";
  run.node_shape.link_gbps = 32;
  const OfferEvaluation box = evaluate_offer(m, pc, w, gpu, offer, provider, run);
  REQUIRE(box.priced());
  CHECK_FALSE(box.network_assumed);
  CHECK(job_links(box.workload, offer, gpu, run).gpus_per_node == 8);
  CHECK(box.time.step_seconds < apart.time.step_seconds);
  CHECK(box.rate_per_hour == Approx(apart.rate_per_hour));  // the same 8 GPUs billed
  // --nodes 2 on a shape of 8: 4 GPUs a machine, which the shape holds.
  run.nodes = 2;
  const OfferEvaluation two = evaluate_offer(m, pc, w, gpu, offer, provider, run);
  REQUIRE(two.priced());
  CHECK(two.network_assumed);
  run.node_shape.gpus_per_node = 2;  // 4 a machine do not fit a shape of 2
  CHECK(evaluate_offer(m, pc, w, gpu, offer, provider, run).excluded == Exclusion::bad_layout);
}
