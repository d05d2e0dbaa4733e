// The time model against published measured throughput (shared/reference/throughput_measured.yaml).
// Uses the shipped GPU and model catalogs, as a user's run would. The tolerance is the claim
// printed in README's "time model" table: change both or neither.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpuplan/step_time.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;

namespace {

constexpr double kMedianTolerance = 0.20;  // median |error| of tokens/s per GPU
constexpr double kWorstTolerance = 0.40;   // no training case further off than this
constexpr double kDecodeWorstTolerance = 0.50;  // nor any batch-1 decode case
// bitsandbytes QLoRA's extra time over LoRA (litgpt's A100 table; the kernel's bandwidth share
// is fitted to these rows, so this checks the shape of the model, not a prediction).
constexpr double kBnbMedianTolerance = 0.15;
constexpr double kBnbWorstTolerance = 0.70;

const ModelArch& model(const std::string& id) { return testing::shipped_model(id); }
const Gpu& gpu(const std::string& id) { return testing::shipped_gpu(id); }

// mosaicml/mpt-7b config: 32 layers, d_model 4096, 32 heads, 4x GELU MLP, vocab 50432, tied,
// LayerNorm without biases.
ModelArch mpt_7b() {
  ModelArch m;
  m.id = "mpt-7b";
  m.layers = 32;
  m.hidden_size = 4096;
  m.intermediate_size = 16384;
  m.attention_heads = 32;
  m.kv_heads = 32;
  m.head_dim = 128;
  m.vocab_size = 50432;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.tied_embeddings = true;
  return m;
}

// Megatron's GPT benchmark models as the README tables print them: 4h GELU MLP, LayerNorm,
// multi-head attention, tied embeddings (Megatron's default).
ModelArch megatron_gpt(const char* id, int layers, int hidden, int heads, int vocab) {
  ModelArch m = mpt_7b();
  m.id = id;
  m.layers = layers;
  m.hidden_size = hidden;
  m.intermediate_size = 4 * hidden;
  m.attention_heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.vocab_size = vocab;
  return m;
}

// Node-to-node bandwidth of the clusters, GB/s per node: DGX H100 / Eos and Meta's H100
// clusters have one 400 Gb/s NIC per GPU (8 x 400 Gb/s = 400 GB/s); Selene's DGX A100 nodes
// eight 200 Gb/s HDR ports (200 GB/s).
constexpr double kH100Cluster = 400;
constexpr double kSelene = 200;

struct Case {
  std::string id;  // throughput_measured.yaml id
  ModelArch model;
  std::string gpu;
  Workload w;
  int grad_accum;
  double measured_per_gpu;  // tokens/s per GPU
  double inter_node_gbps = 0;
};

Workload train(Method method, int gpus, std::int64_t micro_batch, std::int64_t seq, Checkpointing ckpt,
               Sharding sharding = Sharding::ddp) {
  Workload w;
  w.method = method;
  w.gpus = gpus;
  w.micro_batch = micro_batch;
  w.seq_len = seq;
  w.checkpointing = ckpt;
  w.sharding = sharding;
  w.attention = Attention::flash;
  w.lora_rank = 8;
  return w;
}

Workload parallel(Workload w, int tp, int pp, int cp = 1, int vp = 1) {
  w.tensor_parallel = tp;
  w.pipeline_parallel = pp;
  w.context_parallel = cp;
  w.virtual_pipeline = vp;
  w.sequence_parallel = tp > 1;  // Megatron, NeMo and torchtitan turn it on with TP
  return w;
}

// Rows that print model TFLOP/s per GPU instead of tokens/s: tokens/s = TFLOP/s over the
// source's FLOPs per token. Megatron-Core (2024 table) and Llama 3 (Chowdhery et al.'s MFU)
// count 6 x the matmul weights (head included) plus non-causal attention, 12·L·h·s: the
// convention training_flops_per_token's `model` figure follows.
double from_model_tflops(double tflops, const ModelArch& m, const Workload& w) {
  return tflops * 1e12 / training_flops_per_token(m, count_params(m), w).model;
}

// Megatron 2021 (Narayanan et al., sec. 5.1): 96·B·s·l·h²·(1 + s/6h + V/16lh) FLOPs per batch,
// the activation-recomputation forward included.
double from_megatron_2021_tflops(double tflops, const ModelArch& m, std::int64_t seq) {
  const double l = m.layers, h = m.hidden_size, s = static_cast<double>(seq), v = m.vocab_size;
  return tflops * 1e12 / (96 * l * h * h * (1 + s / (6 * h) + v / (16 * l * h)));
}

void add_pretraining_at_scale(std::vector<Case>& v) {
  using C = Checkpointing;
  // Megatron-Core weak scaling (H100, seq 4096, micro-batch 1: global batch / DP sequences per
  // replica as micro-batches; recompute and interleaving not stated, so none).
  {
    const ModelArch m = megatron_gpt("gpt-7.1b", 30, 4096, 32, 131072);
    const Workload w = parallel(train(Method::pretrain, 96, 1, 4096, C::none, Sharding::zero1), 2, 1);
    v.push_back({"megatron-h100-gpt-7b-96gpu", m, "h100-sxm", w, 192 / 48, from_model_tflops(465.9, m, w), kH100Cluster});
  }
  {
    const ModelArch m = megatron_gpt("gpt-70b", 84, 8192, 64, 131072);
    const Workload w = parallel(train(Method::pretrain, 768, 1, 4096, C::none, Sharding::zero1), 8, 2);
    v.push_back({"megatron-h100-gpt-70b-768gpu", m, "h100-sxm", w, 384 / 48, from_model_tflops(419.7, m, w), kH100Cluster});
  }
  {
    const ModelArch m = megatron_gpt("gpt-462b", 112, 18432, 144, 131072);
    const Workload w = parallel(train(Method::pretrain, 6144, 1, 4096, C::none, Sharding::zero1), 8, 16);
    v.push_back({"megatron-h100-gpt-462b-6144gpu", m, "h100-sxm", w, 3072 / 48, from_model_tflops(459.9, m, w), kH100Cluster});
  }
  {
    // Model-parallel size 512 = TP 8 (a DGX node) x PP 64; 160 heads (Narayanan et al. Table 1).
    const ModelArch m = megatron_gpt("gpt-1t", 128, 25600, 160, 51200);
    const Workload w = parallel(train(Method::pretrain, 3072, 1, 2048, C::full), 8, 64);
    v.push_back({"megatron-a100-gpt-1t-3072gpu", m, "a100-80gb-sxm", w, 3072 / 6, from_megatron_2021_tflops(163, m, 2048), kSelene});
  }
  {
    // Llama 3 405B, TP 8 x PP 16 x DP 64, 32 sequences per DP group; gradients and optimizer
    // states sharded (ZeRO-2-like), no recomputation.
    const ModelArch& m = model("llama-3.1-405b");
    const Workload w = parallel(train(Method::pretrain, 8192, 1, 8192, C::none, Sharding::zero2), 8, 16);
    v.push_back({"llama3-405b-h100-8k-8192gpu", m, "h100-sxm", w, 32, from_model_tflops(430, m, w), kH100Cluster});
    // Long-context stage, CP 16: the row's degrees multiply to 8,192 GPUs (the printed 16,384
    // does not match them, see the data file's doubt); per-GPU rates are what is compared.
    const Workload lc = parallel(train(Method::pretrain, 8192, 1, 131072, C::none, Sharding::zero2), 8, 16, 16);
    v.push_back({"llama3-405b-h100-128k-cp-16384gpu", m, "h100-sxm", lc, 16, from_model_tflops(380, m, lc), kH100Cluster});
  }
  // torchtitan Llama 3.1 70B, FSDP 32 x TP 8 on 256 H100s (96 GB, 500 W), full AC, local batch 16.
  v.push_back({"torchtitan-llama31-70b-fsdp-tp-bf16-256gpu", model("llama-3.1-70b"), "h100-sxm",
               parallel(train(Method::pretrain, 256, 16, 8192, C::full, Sharding::fsdp), 8, 1), 1, 597.3, kH100Cluster});
  // NeMo 24.09 Llama 3.1 70B: TP 4, PP 4, CP 2, VP 5, DP 2 on 8 DGX H100 nodes.
  v.push_back({"dgxc-llama31-70b-h100-bf16-64gpu", model("llama-3.1-70b"), "h100-sxm",
               parallel(train(Method::pretrain, 64, 1, 8192, C::none, Sharding::zero1), 4, 4, 2, 5), 64, 71235.0 / 64,
               kH100Cluster});
  // Megatron-Bridge Llama 3 8B FP8 on a DGX B200 (TP = PP = CP = 1, plain DDP).
  Workload b200 = train(Method::pretrain, 8, 2, 8192, C::none, Sharding::zero1);
  b200.precision = Precision::fp8;
  v.push_back({"mbridge-llama3-8b-b200-fp8-8gpu", model("llama-3-8b"), "b200", b200, 8, 30624});
}

// Qwen/Qwen3-30B-A3B config.json: 48 layers, hidden 2048, 32 heads of 128, 4 KV heads, 128
// experts of width 768 with 8 per token, vocab 151936, untied.
ModelArch qwen3_30b_a3b() {
  ModelArch m = mpt_7b();
  m.id = "qwen3-30b-a3b";
  m.layers = 48;
  m.hidden_size = 2048;
  m.intermediate_size = 768;
  m.attention_heads = 32;
  m.kv_heads = 4;
  m.head_dim = 128;
  m.vocab_size = 151936;
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rmsnorm;
  m.tied_embeddings = false;
  m.experts = 128;
  m.experts_per_token = 8;
  return m;
}

void add_moe(std::vector<Case>& v) {
  // Megatron-Bridge Qwen3 30B-A3B FP8 on 2 DGX H100 nodes, EP 16, global batch 1024 of 4096
  // tokens (64 micro-batches per replica); routing force-balanced.
  Workload w = train(Method::pretrain, 16, 1, 4096, Checkpointing::none, Sharding::zero1);
  w.precision = Precision::fp8;
  w.expert_parallel = 16;
  v.push_back({"mbridge-qwen3-30b-a3b-h100-fp8-16gpu", qwen3_30b_a3b(), "h100-sxm", w, 1024 / 16, 8826, kH100Cluster});
}

void add_finetuning_parallel(std::vector<Case>& v) {
  using C = Checkpointing;
  // NeMo LoRA FP8 rows (rank and targets not stated: NeMo's default adapter on linear_qkv).
  Workload lora7 = train(Method::lora, 8, 1, 4096, C::none, Sharding::zero1);
  lora7.precision = Precision::fp8;
  lora7.lora_targets = kLoraQ | kLoraK | kLoraV;
  v.push_back({"nemo-llama2-7b-lora-h100-fp8-8gpu", model("llama-2-7b"), "h100-sxm", lora7, 32 / 8, 25206});
  Workload lora70 = parallel(lora7, 2, 4, 1, 20);
  v.push_back({"mbridge-llama3-70b-lora-h100-fp8-8gpu", model("llama-3.1-70b"), "h100-sxm", lora70, 32, 2643});
}

std::vector<Case> training_cases() {
  using C = Checkpointing;
  std::vector<Case> v;
  v.push_back({"llmfoundry-mpt7b-h100-bf16-8gpu", mpt_7b(), "h100-sxm",
               train(Method::pretrain, 8, 6, 2048, C::none, Sharding::fsdp), 1, 10643});
  v.push_back({"llmfoundry-mpt7b-a100-80gb-bf16-8gpu", mpt_7b(), "a100-80gb-sxm",
               train(Method::pretrain, 8, 6, 2048, C::none, Sharding::fsdp), 2, 4641});
  // CP 2 x DP 4, 32 micro-batches per replica: 128 sequences per step.
  v.push_back({"dgxc-llama31-8b-h100-bf16-8gpu", model("llama-3.1-8b"), "h100-sxm",
               parallel(train(Method::pretrain, 8, 1, 8192, C::none, Sharding::zero1), 1, 1, 2), 32, 81222.0 / 8});
  v.push_back({"dgxc-llama3-8b-sft-h100-bf16-8gpu", model("llama-3-8b"), "h100-sxm",
               train(Method::full, 8, 1, 4096, C::none), 4, 12412});
  v.push_back({"dgxc-llama3-8b-lora-h100-bf16-8gpu", model("llama-3-8b"), "h100-sxm",
               train(Method::lora, 8, 1, 4096, C::none), 4, 17808.6});
  v.push_back({"torchtune-llama31-8b-full-rtx4090", model("llama-3.1-8b"), "rtx-4090",
               train(Method::full, 1, 2, 2048, C::full), 1, 1650});
  // torchtune's 8B LoRA config: rank 8 on q_proj and v_proj only.
  Workload lora8 = train(Method::lora, 1, 2, 2048, C::full);
  lora8.lora_targets = kLoraQ | kLoraV;
  v.push_back({"torchtune-llama31-8b-lora-rtx4090", model("llama-3.1-8b"), "rtx-4090", lora8, 1, 3083});
  // The README's "Tokens/sec" is read as the whole job's: 3497 per GPU would need 4.7x an
  // A100's dense peak for a 70B model (4096 tokens x ~4.2e11 FLOP in 1.17 s). Config: rank 16
  // on q_proj, k_proj, v_proj.
  Workload lora70 = train(Method::lora, 8, 2, 2048, C::full, Sharding::fsdp);
  lora70.lora_rank = 16;
  lora70.lora_targets = kLoraQ | kLoraK | kLoraV;
  v.push_back({"torchtune-llama31-70b-lora-8xa100", model("llama-3.1-70b"), "a100-80gb-sxm", lora70, 1, 3497.0 / 8});
  // The 3B QLoRA config: rank 64 on q_proj, v_proj, output_proj and the MLP.
  Workload qlora3 = train(Method::qlora, 1, 2, 4096, C::full);
  qlora3.lora_rank = 64;
  qlora3.lora_targets = kLoraQ | kLoraV | kLoraO | kLoraGate | kLoraUp | kLoraDown;
  qlora3.qlora_backend = QloraBackend::fused;  // torchtune compiles the NF4 dequantisation into its kernels
  v.push_back({"torchtune-llama32-3b-qlora-a100", model("llama-3.2-3b"), "a100-80gb-sxm", qlora3, 1, 8035});
  add_pretraining_at_scale(v);
  add_finetuning_parallel(v);
  add_moe(v);
  return v;
}

struct DecodeCase {
  std::string id;
  std::string model;
  std::string gpu;
  WeightFormat format;
  double measured;  // tokens/s, batch 1
};

const DecodeCase kDecodeCases[] = {
    {"llamacpp-llama3-8b-f16-rtx4090-tg512", "llama-3-8b", "rtx-4090", WeightFormat::native, 54.84},
    {"llamacpp-llama7b-f16-a100pcie-tg128", "llama-2-7b", "a100-80gb-pcie", WeightFormat::native, 74.77},
    {"gptfast-llama2-7b-bf16-a100-bs1", "llama-2-7b", "a100-80gb-sxm", WeightFormat::native, 104.9},
    {"gptfast-llama2-7b-int4-a100-bs1", "llama-2-7b", "a100-80gb-sxm", WeightFormat::int4_gptq, 196.8},
};

using testing::median;

}  // namespace

TEST_CASE("training throughput is within the stated tolerance of published runs", "[time][measured]") {
  std::vector<double> errors;
  for (const Case& c : training_cases()) {
    const Gpu& g = gpu(c.gpu);
    Links links;
    links.gpus_per_node = 8;
    links.intra_node_gbps = g.interconnect_gbps;
    links.inter_node_gbps = c.inter_node_gbps;
    const StepTime t = estimate_step_time(c.model, count_params(c.model), c.w, c.grad_accum, g, links);
    const double err = (t.tokens_per_second_per_gpu - c.measured_per_gpu) / c.measured_per_gpu;
    std::printf("throughput-case %-44s estimate %8.0f tok/s/GPU  measured %8.0f  error %+6.1f%%  mfu %.0f%%"
                "  bubble %.0f%%  tp-comm %.0f%%  exposed-comm %.0f%%\n",
                c.id.c_str(), t.tokens_per_second_per_gpu, c.measured_per_gpu, 100 * err, 100 * t.mfu,
                100 * t.bubble_seconds / t.step_seconds, 100 * t.tp_comm_seconds / t.step_seconds,
                100 * t.exposed_comm_seconds / t.step_seconds);
    errors.push_back(std::abs(err));
    CHECK(std::abs(err) <= kWorstTolerance);
  }
  std::printf("throughput training: median |error| %.1f%%\n", 100 * median(errors));
  CHECK(median(errors) <= kMedianTolerance);
}

TEST_CASE("batch-1 decode speed is within the stated tolerance of published runs", "[time][measured]") {
  std::vector<double> errors;
  for (const DecodeCase& c : kDecodeCases) {
    Workload w;
    w.method = Method::inference;
    w.precision = Precision::fp16;
    w.weight_format = c.format;
    w.micro_batch = 1;
    w.seq_len = 512;
    const ModelArch& m = model(c.model);
    const DecodeTime d = estimate_decode(m, count_params(m), w, gpu(c.gpu));
    const double err = (d.tokens_per_second - c.measured) / c.measured;
    std::printf("decode-case %-40s estimate %7.1f tok/s  measured %7.1f  error %+6.1f%%\n", c.id.c_str(),
                d.tokens_per_second, c.measured, 100 * err);
    errors.push_back(std::abs(err));
    CHECK(std::abs(err) <= kDecodeWorstTolerance);
  }
  std::printf("decode: median |error| %.1f%%\n", 100 * median(errors));
  CHECK(median(errors) <= kMedianTolerance);
}

namespace {

// microsoft/phi-1_5 config.json: 24 layers, 2048 wide, 32 heads, GELU MLP 8192, vocab 51200.
ModelArch phi_15() {
  ModelArch m = megatron_gpt("phi-1.5", 24, 2048, 32, 51200);
  m.intermediate_size = 8192;
  m.tied_embeddings = false;
  return m;
}

// stabilityai/stablelm-base-alpha-3b config.json (GPT-NeoX): 16 layers, 4096 wide, 32 heads,
// MLP 16384, vocab 50688.
ModelArch stablelm_alpha_3b() {
  ModelArch m = megatron_gpt("stablelm-base-alpha-3b", 16, 4096, 32, 50688);
  m.tied_embeddings = false;
  return m;
}

struct BnbCase {
  const char* id;
  ModelArch model;
  bool double_quant;
  double lora_minutes, qlora_minutes;  // litgpt's "Time 1k iterations", micro-batch 1
};

}  // namespace

// Lightning-AI/litgpt tutorials/resource-tables.md (2023-10-20, commit 8641822, A100-SXM4-40GB,
// bitsandbytes 0.41.1, bf16-true, finetune/lora.py, micro-batch 1): QLoRA (bnb.nf4, bnb.nf4-dq)
// against LoRA without quantisation. The difference per iteration is the dequantisation alone,
// whatever the Alpaca samples' lengths: that is what is compared.
TEST_CASE("bitsandbytes QLoRA's dequantisation time is within the stated tolerance of litgpt's", "[time][measured][lora]") {
  const BnbCase cases[] = {
      {"litgpt-phi15-nf4", phi_15(), false, 1.62, 1.77},
      {"litgpt-phi15-nf4-dq", phi_15(), true, 1.62, 1.87},
      {"litgpt-stablelm3b-nf4", stablelm_alpha_3b(), false, 1.24, 1.82},
      {"litgpt-stablelm3b-nf4-dq", stablelm_alpha_3b(), true, 1.24, 1.87},
      {"litgpt-llama2-7b-nf4", model("llama-2-7b"), false, 2.36, 3.68},
      {"litgpt-llama2-7b-nf4-dq", model("llama-2-7b"), true, 2.36, 3.83},
      {"litgpt-llama2-13b-nf4", model("llama-2-13b"), false, 3.19, 6.38},
      {"litgpt-llama2-13b-nf4-dq", model("llama-2-13b"), true, 3.19, 6.55},
  };
  std::vector<double> errors;
  for (const BnbCase& c : cases) {
    const ParamCounts pc = count_params(c.model);
    Workload w;
    w.method = Method::lora;
    w.micro_batch = 1;
    w.seq_len = 512;
    w.double_quant = c.double_quant;
    const double lora = estimate_step_time(c.model, pc, w, 1, gpu("a100-40gb-sxm"), Links{}).step_seconds;
    w.method = Method::qlora;
    w.qlora_backend = QloraBackend::bitsandbytes;
    const double qlora = estimate_step_time(c.model, pc, w, 1, gpu("a100-40gb-sxm"), Links{}).step_seconds;
    const double measured = (c.qlora_minutes - c.lora_minutes) * 60 / 1000;  // seconds per iteration
    const double err = (qlora - lora - measured) / measured;
    std::printf("bnb-case %-28s estimate %6.1f ms  measured %6.1f ms  error %+6.1f%%\n", c.id, 1e3 * (qlora - lora),
                1e3 * measured, 100 * err);
    errors.push_back(std::abs(err));
    CHECK(std::abs(err) <= kBnbWorstTolerance);
  }
  std::printf("bitsandbytes dequantisation: median |error| %.1f%%\n", 100 * median(errors));
  CHECK(median(errors) <= kBnbMedianTolerance);
}
