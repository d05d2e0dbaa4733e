#include <catch2/catch.hpp>

#include <algorithm>

#include "core/test_models.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/step_time.hpp"

using namespace gpuplan;

namespace {
Gpu test_gpu() {
  Gpu g;
  g.id = "test";
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 1000;
  g.memory_bandwidth_gbps = 3000;
  g.interconnect_gbps = 400;
  return g;
}
}  // namespace

TEST_CASE("training FLOPs follow 6N + attention, and recomputation adds a forward", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.seq_len = 2048;
  const double attn = 12.0 * 32 * 32 * 128 * 2048;
  const double n = pc.total() - pc.embedding;  // untied: the head multiplies, the lookup does not
  TokenFlops f = training_flops_per_token(m, pc, w);
  CHECK(f.model == Approx(6 * n + attn));
  CHECK(f.hardware == Approx(f.model));
  w.checkpointing = Checkpointing::full;
  f = training_flops_per_token(m, pc, w);
  // Checkpointing wraps the decoder layers: their forward is rerun, the LM head's is not.
  const double head = pc.lm_head;
  CHECK(f.hardware == Approx(8 * n - 2 * head + attn * 4 / 3));
  w.checkpointing = Checkpointing::none;
  w.method = Method::lora;
  CHECK(training_flops_per_token(m, pc, w).model == Approx(4 * n + attn));
}

TEST_CASE("one GPU's step time is FLOPs over peak x utilisation", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 4;
  w.seq_len = 1024;
  TimeConstants k;
  k.hfu = 0.5;
  const StepTime t = estimate_step_time(m, pc, w, 2, test_gpu(), Links{}, k);
  const double flops = 2 * 4 * 1024 * training_flops_per_token(m, pc, w).hardware;
  CHECK(t.step_seconds == Approx(flops / (1000e12 * 0.5)));
  CHECK(t.tokens_per_step == 2 * 4 * 1024);
  CHECK(t.mfu == Approx(0.5));
  CHECK(t.scaling_efficiency == 1);
}

TEST_CASE("data parallelism pays for its collectives on slow links", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 1;
  w.seq_len = 2048;
  w.gpus = 16;
  Links nvlink{8, 400, 400};
  Links ethernet{8, 400, 1.25};
  const StepTime fast = estimate_step_time(m, pc, w, 1, test_gpu(), nvlink);
  const StepTime slow = estimate_step_time(m, pc, w, 1, test_gpu(), ethernet);
  CHECK(slow.comm_seconds > 100 * fast.comm_seconds);
  CHECK(slow.scaling_efficiency < 0.2);
  CHECK(fast.scaling_efficiency > slow.scaling_efficiency);
  // Hierarchically: reduced inside each node, then a ring over the 2 nodes moves 2(n-1)/n of
  // the bf16 gradients over each node's NICs.
  const double grads = pc.total() * 2;
  CHECK(slow.comm_seconds == Approx(2 * 1.0 / 2 * grads / (1.25e9 * 0.8)));
  // FSDP also gathers parameters for every micro-batch: more traffic than DDP.
  w.sharding = Sharding::fsdp;
  CHECK(estimate_step_time(m, pc, w, 4, test_gpu(), nvlink).comm_seconds > fast.comm_seconds);
}

TEST_CASE("decode at batch 1 is bound by reading the weights", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::inference;
  w.micro_batch = 1;
  w.seq_len = 128;
  TimeConstants k;
  const DecodeTime d = estimate_decode(m, pc, w, test_gpu(), k);
  const double weights = (pc.total() - pc.embedding) * 2;  // the untied embedding is only looked up
  // Plus serving's fixed per-pass overhead (one decode model, src/core/serving.cpp).
  CHECK(d.tokens_per_second ==
        Approx(1.0 / (weights / (3000e9 * k.bandwidth_efficiency) + ServingConstants{}.step_overhead_seconds)).epsilon(0.02));
  w.weight_format = WeightFormat::int4_gptq;
  // A quarter of the bytes, read at the dequantising kernels' lower bandwidth.
  CHECK(estimate_decode(m, pc, w, test_gpu(), k).tokens_per_second > 1.5 * d.tokens_per_second);
}

// ---- issue 15.4: offload costs time --------------------------------------------------------

TEST_CASE("optimizer offload pays PCIe both ways and a CPU Adam step, hand-computed", "[time][offload]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 1;
  w.seq_len = 2048;
  w.sharding = Sharding::zero2;
  TimeConstants k;
  k.hfu = 0.5;
  const Gpu g = test_gpu();  // not a PCIe card, no generation: PCIe 4.0 x16, 32 GB/s
  CHECK(host_link_gbps(g) == 32);
  const StepTime none = estimate_step_time(m, pc, w, 1, g, Links{}, k);
  w.offload = Offload::optimizer;
  const StepTime opt = estimate_step_time(m, pc, w, 1, g, Links{}, k);
  // One GPU updates all 8.03e9 parameters: bf16 gradients down (hidden under backward up to
  // 80%), CPU Adam streaming 30 B per parameter at 100 GB/s, bf16 parameters back up.
  const double n = pc.total();
  const double pcie = 32e9 * 0.8;
  const double cpu = n * 30 / 100e9;
  const double up = n * 2 / pcie;
  const double down = n * 2 / pcie;
  const double hidden = std::min(down * 0.8, none.compute_seconds * 2 / 3);
  CHECK(opt.offload_seconds == Approx(cpu + up));
  CHECK(opt.step_seconds == Approx(none.step_seconds + cpu + up + down - hidden));
  CHECK(opt.tokens_per_second < 0.8 * none.tokens_per_second);
  // Offloading the parameters too fetches them for every forward and backward.
  w.offload = Offload::optimizer_params;
  w.sharding = Sharding::zero3;
  const StepTime params = estimate_step_time(m, pc, w, 4, g, Links{}, k);
  w.offload = Offload::optimizer;
  CHECK(params.step_seconds > estimate_step_time(m, pc, w, 4, g, Links{}, k).step_seconds);
  // A faster host (the calibration profile's STREAM figure) shortens the CPU step.
  k.host_memory_gbps = 400;
  CHECK(estimate_step_time(m, pc, w, 1, g, Links{}, k).offload_seconds == Approx(n * 30 / 400e9 + up));
}

TEST_CASE("ZeRO-Offload's CPU step shares the host among a node's GPUs", "[time][offload]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.gpus = 8;
  w.sharding = Sharding::zero2;
  w.offload = Offload::optimizer;
  const Links node{8, 400, 0, 0};
  const StepTime t = estimate_step_time(m, pc, w, 1, test_gpu(), node);
  // Each GPU owns an eighth of the states; the node's CPU updates all eight shards.
  const double shard = pc.total() / 8;
  CHECK(t.offload_seconds == Approx(8 * shard * 30 / 100e9 + shard * 2 / (32e9 * 0.8)));
}

// ---- issue 15.5: hierarchical collectives across nodes ------------------------------------

TEST_CASE("data parallelism across nodes costs more than inside one, whatever the TP degree", "[time][multinode]") {
  const ModelArch m = testing::llama31_70b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 1;
  w.seq_len = 4096;
  w.tensor_parallel = 8;
  const Links cluster{8, 450, 400, 0};  // NVLink in the node, 8 x 400 Gb/s between nodes
  w.gpus = 8;
  const StepTime one_node = estimate_step_time(m, pc, w, 1, test_gpu(), cluster);
  w.gpus = 64;  // DP 8 across 8 nodes: every DP ring leaves the node
  const StepTime eight_nodes = estimate_step_time(m, pc, w, 1, test_gpu(), cluster);
  CHECK(eight_nodes.comm_seconds > one_node.comm_seconds + 0.1);
  // Hand-computed: each GPU's 1/8 of the bf16 gradients; 8 DP groups per node share its NICs,
  // each moving 2 x 7/8 of its buffer between nodes.
  const double grads = pc.total() / 8 * 2;
  const double dp = 8 * 2 * 7.0 / 8 * grads / (400e9 * 0.8);
  CHECK(eight_nodes.comm_seconds - eight_nodes.tp_comm_seconds == Approx(dp));
  // An offer that states no network gets 10 GbE between nodes.
  const Links unknown{8, 450, 0, 0};
  CHECK(estimate_step_time(m, pc, w, 1, test_gpu(), unknown).comm_seconds > 50 * eight_nodes.comm_seconds / 2);
}

// ---- issue 15.6: tensor and pipeline parallelism ------------------------------------------

TEST_CASE("tensor parallelism adds four activation all-reduces per layer", "[time][parallel]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 2;
  w.seq_len = 4096;
  w.gpus = 4;
  w.tensor_parallel = 4;
  const Links node{8, 400, 0, 0};
  const StepTime t = estimate_step_time(m, pc, w, 1, test_gpu(), node);
  const double act = 2.0 * 4096 * 4096 * 2;  // tokens x hidden x bf16
  const double one = 2 * 3.0 / 4 * act / (400e9 * 0.8);
  CHECK(t.tp_comm_seconds == Approx(32 * 4 * one));
  w.checkpointing = Checkpointing::full;  // the recomputed forward all-reduces again
  CHECK(estimate_step_time(m, pc, w, 1, test_gpu(), node).tp_comm_seconds == Approx(32 * 6 * one));
  // Each GPU does a quarter of the FLOPs.
  w.checkpointing = Checkpointing::none;
  w.tensor_parallel = 1;
  w.gpus = 1;
  CHECK(t.compute_seconds == Approx(estimate_step_time(m, pc, w, 1, test_gpu(), node).compute_seconds / 4));
}

TEST_CASE("the pipeline bubble is (p-1)/(m+p-1), shrunk by interleaving", "[time][parallel]") {
  const ModelArch m = testing::llama31_70b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.seq_len = 4096;
  w.gpus = 4;
  w.pipeline_parallel = 4;
  const Links node{8, 450, 0, 0};
  const StepTime t = estimate_step_time(m, pc, w, 8, test_gpu(), node);
  CHECK(t.bubble_fraction == Approx(3.0 / 11));
  CHECK(t.data_parallel == 1);
  w.virtual_pipeline = 5;
  const StepTime v = estimate_step_time(m, pc, w, 8, test_gpu(), node);
  CHECK(v.bubble_fraction == Approx(0.6 / 8.6));
  CHECK(v.tokens_per_second > t.tokens_per_second);
  // More micro-batches amortise the fill and drain.
  CHECK(estimate_step_time(m, pc, w, 64, test_gpu(), node).bubble_fraction < v.bubble_fraction);
}

TEST_CASE("layouts the model cannot run are named", "[time][parallel]") {
  const ModelArch m = testing::llama31_8b();
  Workload w;
  w.gpus = 16;
  w.tensor_parallel = 8;
  w.pipeline_parallel = 2;
  CHECK(parallel_layout_problem(m, w) == nullptr);
  CHECK(data_parallel(w) == 1);
  w.tensor_parallel = 3;
  CHECK(parallel_layout_problem(m, w) != nullptr);
  w.tensor_parallel = 1;
  w.pipeline_parallel = 64;
  CHECK(parallel_layout_problem(m, w) != nullptr);
}

// ---- issue 15.7: LoRA/QLoRA under checkpointing --------------------------------------------

TEST_CASE("a frozen base's recompute stops before the last MLP projection and skips the head", "[time][lora]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.seq_len = 2048;
  w.method = Method::lora;
  w.lora_targets = kLoraQ | kLoraV;
  const TokenFlops plain = training_flops_per_token(m, pc, w);
  w.checkpointing = Checkpointing::full;
  const TokenFlops ckpt = training_flops_per_token(m, pc, w);
  const double layers = pc.total() - pc.embedding - pc.lm_head - pc.norms;
  const double down = 32.0 * 4096 * 14336;
  const double attn = 12.0 * 32 * 32 * 128 * 2048;
  CHECK(ckpt.model == Approx(plain.model));
  CHECK(ckpt.hardware - plain.hardware == Approx(2 * (layers - down) + attn / 3).epsilon(0.001));
  // A LoRA adapter on down_proj needs its input: then the whole layer is rerun.
  w.lora_targets = kLoraAllLinear;
  CHECK(training_flops_per_token(m, pc, w).hardware - plain.hardware == Approx(2 * layers + attn / 3).epsilon(0.001));
}

TEST_CASE("QLoRA's dequantisation is memory traffic, not a fixed slowdown", "[time][lora]") {
  const ModelArch m = testing::llama32_3b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::lora;
  w.micro_batch = 2;
  w.seq_len = 4096;
  w.checkpointing = Checkpointing::full;
  TimeConstants k;
  k.hfu = 0.5;
  const StepTime lora = estimate_step_time(m, pc, w, 1, test_gpu(), Links{}, k);
  w.method = Method::qlora;
  w.qlora_backend = QloraBackend::fused;
  const StepTime qlora = estimate_step_time(m, pc, w, 1, test_gpu(), Links{}, k);
  // Three passes (forward, recompute, backward) each read NF4 (0.5 B + absmax) and write bf16.
  const double bytes = 3 * pc.linear_weights * (bytes_per_weight(WeightFormat::nf4, false) + 2);
  CHECK(qlora.step_seconds - lora.step_seconds == Approx(bytes / (3000e9 * 0.75)));
  CHECK(qlora.step_seconds < 1.05 * lora.step_seconds);  // torchtune A100: -2.1%
  // bitsandbytes moves the same bytes at its kernel's share of the bandwidth.
  w.qlora_backend = QloraBackend::bitsandbytes;
  const StepTime bnb = estimate_step_time(m, pc, w, 1, test_gpu(), Links{}, k);
  CHECK(bnb.step_seconds - lora.step_seconds == Approx(bytes / (3000e9 * k.bnb_dequant_bandwidth_share)));
}

TEST_CASE("QLoRA's dequantisation never runs faster than the card's memory bandwidth", "[time][lora][property]") {
  for (const ModelArch& m : {testing::llama32_3b(), testing::llama31_8b(), testing::llama31_70b()}) {
    const ParamCounts pc = count_params(m);
    for (QloraBackend backend : {QloraBackend::bitsandbytes, QloraBackend::fused})
      for (Checkpointing c : {Checkpointing::none, Checkpointing::full})
        for (bool dq : {false, true}) {
          Workload w;
          w.micro_batch = 1;
          w.seq_len = 512;
          w.checkpointing = c;
          w.double_quant = dq;
          w.method = Method::lora;
          const double lora = estimate_step_time(m, pc, w, 1, test_gpu(), Links{}).step_seconds;
          w.method = Method::qlora;
          w.qlora_backend = backend;
          const double qlora = estimate_step_time(m, pc, w, 1, test_gpu(), Links{}).step_seconds;
          // Each pass must at least read the 4-bit weights and write their bf16 copy once at peak.
          const double passes = c == Checkpointing::full ? 3 : 2;
          const double floor = passes * pc.linear_weights * (bytes_per_weight(WeightFormat::nf4, dq) + 2) / 3000e9;
          CHECK(qlora - lora >= floor * (1 - 1e-12));
        }
  }
}

TEST_CASE("pipeline, context and sequence parallelism divide per-GPU memory", "[memory][parallel]") {
  const ModelArch m = testing::llama31_70b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 1;
  w.seq_len = 8192;
  w.gpus = 8;
  w.tensor_parallel = 8;
  const MemoryBreakdown tp8 = estimate_memory(m, pc, w);
  // Without sequence parallelism the norms' inputs are replicated across the TP group.
  w.sequence_parallel = true;
  const MemoryBreakdown sp = estimate_memory(m, pc, w);
  const double norms = 8192.0 * 80 * 2 * 4 * 8192;  // tokens x layers x 2 RMSNorm fp32 inputs
  CHECK(tp8[MemComponent::activations] - sp[MemComponent::activations] == Approx(norms * 7 / 8));
  // PP 4: a quarter of the layers plus the embedding (first stage) or head (last stage).
  w.gpus = 32;
  w.pipeline_parallel = 4;
  const MemoryBreakdown pp = estimate_memory(m, pc, w);
  const double stage = (pc.total() - pc.embedding - pc.lm_head) / 4 + pc.embedding;
  CHECK(pp[MemComponent::weights] == Approx(sp[MemComponent::weights] * stage / pc.total()));
  CHECK(pp[MemComponent::optimizer] == Approx(sp[MemComponent::optimizer] * stage / pc.total()));
  // 1F1B keeps p micro-batches of layers/p in flight on the first stage: the same activations.
  CHECK(pp[MemComponent::activations] == Approx(sp[MemComponent::activations]));
  w.virtual_pipeline = 5;  // interleaving: 1 + (p-1)/(p v) more
  CHECK(estimate_memory(m, pc, w)[MemComponent::activations] == Approx(sp[MemComponent::activations] * (1 + 3.0 / 20)));
  // CP 2 halves each GPU's tokens: activations and logits.
  w.virtual_pipeline = 1;
  w.gpus = 64;
  w.context_parallel = 2;
  const MemoryBreakdown cp = estimate_memory(m, pc, w);
  CHECK(cp[MemComponent::activations] == Approx(pp[MemComponent::activations] / 2));
  CHECK(cp[MemComponent::logits] == Approx(pp[MemComponent::logits] / 2));
  CHECK(cp.data_parallel == 1);
}

TEST_CASE("ZeRO and FSDP shard over data x context parallel GPUs", "[memory][parallel]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 1;
  w.seq_len = 8192;
  w.gpus = 8;
  for (Sharding s : {Sharding::zero1, Sharding::zero2, Sharding::fsdp}) {
    w.sharding = s;
    w.context_parallel = 1;
    const MemoryBreakdown dp8 = estimate_memory(m, pc, w);
    w.context_parallel = 2;  // CP 2 x DP 4: the CP ranks hold the same parameters, so 8 shards still
    const MemoryBreakdown cp2 = estimate_memory(m, pc, w);
    CHECK(cp2.data_parallel == 4);
    CHECK(cp2[MemComponent::optimizer] == Approx(dp8[MemComponent::optimizer]));
    CHECK(cp2[MemComponent::gradients] == Approx(dp8[MemComponent::gradients]));
    CHECK(cp2[MemComponent::weights] == Approx(dp8[MemComponent::weights]));
  }
  w.sharding = Sharding::zero1;
  w.context_parallel = 2;
  // Hand-computed: AdamW's 8 bytes and the fp32 master's 4 per parameter, over 8 shards.
  CHECK(estimate_memory(m, pc, w)[MemComponent::optimizer] == Approx(pc.total() * 8.0 / 8));
}

TEST_CASE("expert parallelism pays its all-to-alls, more across nodes", "[time][parallel]") {
  ModelArch m = testing::llama31_8b();
  m.experts = 64;
  m.experts_per_token = 8;
  m.intermediate_size = 1024;
  const ParamCounts pc = count_params(m);
  Workload w;
  w.seq_len = 4096;
  w.expert_parallel = 8;
  w.gpus = 8;
  CHECK(parallel_layout_problem(m, w) == nullptr);
  const Links cluster{8, 450, 400, 0};
  const StepTime one_node = estimate_step_time(m, pc, w, 1, test_gpu(), cluster);
  // Hand-computed: 4 all-to-alls per layer, each sending 7/8 of 8 copies of the tokens' bf16
  // hidden states over NVLink.
  const double bytes = 4096.0 * 4096 * 2 * 8;
  CHECK(one_node.exposed_comm_seconds >= Approx(32 * 4 * bytes * 7 / 8 / (450e9 * 0.8)));
  w.expert_parallel = 16;
  w.gpus = 16;
  CHECK(estimate_step_time(m, pc, w, 1, test_gpu(), cluster).exposed_comm_seconds > 2 * one_node.exposed_comm_seconds);
  // Each GPU keeps 1/ep of the experts.
  const MemoryBreakdown mem = estimate_memory(m, pc, w);
  w.expert_parallel = 1;
  CHECK(mem[MemComponent::weights] < 0.2 * estimate_memory(m, pc, w)[MemComponent::weights]);
}
