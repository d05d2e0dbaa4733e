// Properties of multi-GPU placement that must hold for every layout, not only for the measured
// examples: spreading the same GPUs over more nodes never makes a step faster when each GPU's
// share of the network is slower than its links inside a node, and no step beats its compute floor.
// (With a fixed NIC per node, half-filled nodes do give each GPU more network: faster, at twice the
// instances billed. Cloud GPU nodes carry one NIC per GPU, so the share per GPU is held fixed here.)
#include <catch2/catch.hpp>

#include <vector>

#include "core/test_models.hpp"
#include "gpuplan/step_time.hpp"

using namespace gpuplan;

namespace {

Gpu h100_like() {
  Gpu g;
  g.id = "h100-like";
  g.memory_bytes = 80ull << 30;
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 989;
  g.memory_bandwidth_gbps = 3350;
  g.interconnect_gbps = 450;
  return g;
}

struct Layout {
  int tp, pp, cp;
  Sharding sharding;
};

std::vector<Layout> layouts() {
  std::vector<Layout> out;
  for (int tp : {1, 2, 8})
    for (int pp : {1, 2})
      for (int cp : {1, 2})
        for (Sharding s : {Sharding::ddp, Sharding::zero1, Sharding::zero2, Sharding::fsdp})
          out.push_back({tp, pp, cp, s});
  return out;
}

}  // namespace

TEST_CASE("the same GPUs on more nodes are never faster when the network is the slower link", "[time][multinode][property]") {
  const Gpu gpu = h100_like();
  int checked = 0;
  for (const ModelArch& m : {testing::llama31_8b(), testing::llama31_70b()}) {
    const ParamCounts pc = count_params(m);
    // Each GPU's NIC (GB/s): 10 GbE shared by 8, 100 Gb/s, 400 Gb/s; all below NVLink's 450 per GPU.
    for (double nic : {1.25 / 8, 12.5, 50.0})
      for (int gpus : {8, 16, 32})
        for (const Layout& l : layouts()) {
          Workload w;
          w.gpus = gpus;
          w.micro_batch = 1;
          w.seq_len = 4096;
          w.tensor_parallel = l.tp;
          w.pipeline_parallel = l.pp;
          w.context_parallel = l.cp;
          w.sharding = l.sharding;
          if (parallel_layout_problem(m, w) != nullptr) continue;
          const int grad_accum = 4 * l.pp;
          double previous = 0;
          for (int per_node = 8; per_node >= 1; per_node /= 2) {  // 8 GPUs a node, then spread over twice the nodes
            const Links links{per_node, 450, nic * per_node, 0};
            const StepTime t = estimate_step_time(m, pc, w, grad_accum, gpu, links);
            INFO(m.id << " gpus " << gpus << " tp " << l.tp << " pp " << l.pp << " cp " << l.cp << " sharding "
                      << static_cast<int>(l.sharding) << " NIC " << nic << " GB/s a GPU, " << per_node << " GPUs a node");
            CHECK(t.step_seconds >= previous * (1 - 1e-12));
            // The compute floor: the step's FLOPs at the card's dense peak, spread over every GPU.
            CHECK(t.step_seconds >= t.compute_seconds * (1 - 1e-12));
            CHECK(t.hfu <= 1.0);
            previous = t.step_seconds;
            ++checked;
          }
        }
  }
  CHECK(checked > 500);  // the sweep ran: most layouts are valid for both models
}
