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

// A LoRA job on 8 RTX 4090s rented as 1-GPU offers, for ten steps: where the 8 cards sit is
// what the tests change.
struct EightCards {
  Gpu gpu = catalog_gpus()[0];
  ModelArch m = testing::llama32_3b();
  ParamCounts pc = count_params(m);
  Offer offer;
  Provider provider;
  Workload w;
  RunSpec run;
  EightCards() {
    offer.id = "rtx-4090-x1";
    offer.provider = "p";
    offer.gpu = gpu.id;
    offer.gpus = 1;
    offer.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 0.5;
    provider.id = "p";
    w.method = Method::lora;
    w.gpus = 8;
    w.micro_batch = 1;
    w.seq_len = 2048;
    run.gpus_fixed = true;
    run.steps = 10;
  }
  OfferEvaluation evaluate() const { return evaluate_offer(m, pc, w, gpu, offer, provider, run); }
};

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
  EightCards j;
  const OfferEvaluation apart = j.evaluate();
  REQUIRE(apart.priced());
  CHECK(apart.network_assumed);
  CHECK(job_links(apart.workload, j.offer, j.gpu, j.run).gpus_per_node == 1);
  j.run.node_shape.gpus_per_node = 8;
  j.run.node_shape.link = "pcie4";
  j.run.node_shape.link_gbps = 32;
  const OfferEvaluation box = j.evaluate();
  REQUIRE(box.priced());
  CHECK_FALSE(box.network_assumed);
  CHECK(job_links(box.workload, j.offer, j.gpu, j.run).gpus_per_node == 8);
  CHECK(box.time.step_seconds < apart.time.step_seconds);
  CHECK(box.rate_per_hour == Approx(apart.rate_per_hour));  // the same 8 GPUs billed
  // --nodes 2 on a shape of 8: 4 GPUs a machine, which the shape holds.
  j.run.nodes = 2;
  const OfferEvaluation two = j.evaluate();
  REQUIRE(two.priced());
  CHECK(two.network_assumed);
  j.run.node_shape.gpus_per_node = 2;  // 4 a machine do not fit a shape of 2
  CHECK(j.evaluate().excluded == Exclusion::bad_layout);
}

TEST_CASE("the --network rate fills in only where the sheet publishes no network", "[time][node_shape]") {
  const Gpu gpu = catalog_gpus()[2];
  NodeShape s;
  s.network_gbps = 100;
  // A silent sheet (or your own machines): yours, 100 Gb/s = 12.5 GB/s.
  CHECK(network_source(Links{8, 450, 0, 0}, s) == NetworkSource::stated);
  CHECK(shaped_links(Links{8, 450, 0, 0}, s, gpu).inter_node_gbps == Approx(12.5));
  // A cloud sheet that publishes 3,200 Gb/s rents that network: it stays.
  CHECK(network_source(Links{8, 450, 400, 0}, s) == NetworkSource::sheet);
  CHECK(shaped_links(Links{8, 450, 400, 0}, s, gpu).inter_node_gbps == Approx(400));
  s.network_gbps = 0;
  CHECK(network_source(Links{8, 450, 0, 0}, s) == NetworkSource::assumed);
}

TEST_CASE("remote training data is read over the nodes' network, --network included", "[pipeline][node_shape]") {
  EightCards j;
  j.run.node_shape.gpus_per_node = 8;  // one box: the collectives stay inside it, the data comes over the network
  CHECK_FALSE(j.evaluate().pipeline->storage_limit);  // no network known
  // One box on 0.00016 Gb/s (20 kB/s) reads 20 kB/s of raw text, 5,208 tokens/s: below what 8 cards train.
  j.run.node_shape.network_gbps = 0.00016;
  const OfferEvaluation e = j.evaluate();
  REQUIRE(e.pipeline);
  REQUIRE(e.pipeline->storage_limit);
  CHECK(*e.pipeline->storage_limit == Approx(2e4));
  CHECK(e.pipeline->storage_from_network);
  CHECK(e.pipeline->bound == PipelineBound::storage);
}

TEST_CASE("an inference replica's TP all-reduces cross the links the offer and node shape give",
          "[time][node_shape][serving]") {
  const Gpu gpu = catalog_gpus()[2];  // NVLink 450 GB/s
  const ModelArch m = testing::llama31_70b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::inference;
  w.gpus = 8;
  w.tensor_parallel = 8;
  w.micro_batch = 64;
  w.seq_len = 1024;
  const DecodeTime own = estimate_decode(m, pc, w, gpu);
  CHECK(estimate_decode(m, pc, w, gpu, {}, Links{8, 450, 0, 0}).step_seconds == Approx(own.step_seconds));
  // The same 8 GPUs as 8 machines on 100 Gb/s: slower, never faster; on 2 nodes of 4 in between.
  const double apart = estimate_decode(m, pc, w, gpu, {}, Links{1, 450, 12.5, 0}).step_seconds;
  const double two = estimate_decode(m, pc, w, gpu, {}, Links{4, 450, 12.5, 0}).step_seconds;
  CHECK(two > own.step_seconds);
  CHECK(apart >= two);
  // By hand: 2 all-reduces a layer of 64 tokens x 8192 x 2 bytes; across 8 nodes each carries
  // 2 x 7/8 of it over 12.5 GB/s x 0.8, plus 20 us each; the rest of the step is the NVLink case's.
  const double bytes = 64.0 * 8192 * 2;
  const double nvlink = 2 * 7.0 / 8 * bytes / (450e9 * 0.8);
  const double network = 2 * 7.0 / 8 * bytes / (12.5e9 * 0.8);
  CHECK(apart - own.step_seconds == Approx(2 * 80 * (network - nvlink)));
}

TEST_CASE("an inference replica spread over more nodes never decodes faster when the network is the slower link",
          "[time][node_shape][serving][property]") {
  const Gpu gpu = catalog_gpus()[2];
  int checked = 0;
  for (const ModelArch& m : {testing::llama31_8b(), testing::llama31_70b()})
    for (int tp : {2, 4, 8})
      for (int pp : {1, 2})
        for (std::int64_t batch : {1, 64})
          for (double network : {0.0, 12.5, 50.0}) {  // 10 GbE (assumed), 100 Gb/s, 400 Gb/s a node
            Workload w;
            w.method = Method::inference;
            w.tensor_parallel = tp;
            w.pipeline_parallel = pp;
            w.gpus = tp * pp;
            w.micro_batch = batch;
            w.seq_len = 2048;
            const ParamCounts pc = count_params(m);
            double previous = 0;
            for (int per_node = tp * pp; per_node >= 1; per_node /= 2) {
              const double step = estimate_decode(m, pc, w, gpu, {}, Links{per_node, 450, network, 0}).step_seconds;
              INFO(m.id << " tp " << tp << " pp " << pp << " batch " << batch << " network " << network << " per node " << per_node);
              CHECK(step >= previous * (1 - 1e-12));
              previous = step;
              ++checked;
            }
          }
  CHECK(checked > 100);
}
