#pragma once
// What a job asks of the hardware: method, precision, batch shape and parallelism. One plain
// struct of knobs (leveldb's Options style); every field says its meaning and default.
#include <cstdint>
#include <optional>
#include <string>

namespace gpuplan {

enum class Method { full, lora, qlora, freeze, inference, pretrain };
enum class Precision { fp32, fp16, bf16, fp8 };
enum class WeightFormat { native, fp32, fp16, bf16, fp8, int8, nf4, fp4, int4_gptq, int4_awq };
enum class Optimizer { adamw, adamw_8bit, paged_adamw_8bit, sgd, sgd_momentum, adafactor, lion };
enum class Attention { eager, sdpa, flash };
enum class Checkpointing { none, selective, full };
enum class Sharding { ddp, zero1, zero2, zero3, fsdp };
enum class Offload { none, optimizer, optimizer_params };
enum class KvDtype { native, fp16, bf16, fp8, int8 };
enum class Loss { standard, chunked, fused };
// What dequantises QLoRA's 4-bit base weights: bitsandbytes' standalone kernel before each
// matmul (Hugging Face PEFT, litgpt, axolotl: what most users run), or fused/compiled kernels
// (torchtune with torch.compile, Unsloth) that stream the weights near full memory bandwidth.
enum class QloraBackend { bitsandbytes, fused };
// Which training engine's saved tensors size the activations: Hugging Face eager modules (fp32
// RMSNorm inputs, unfused SwiGLU; Hugging Face under FSDP keeps the same tensors), Megatron-Core
// with Transformer Engine (fused norm+linear and SwiGLU keeping 16-bit tensors; Korthikanti et
// al. 2022), or torchtitan (Hugging Face-shaped Llama modules, whose "selective" checkpointing is
// its per-op policy: op_sac_saved_bytes_per_token in memory.hpp).
enum class ActivationProfile { hf, megatron, torchtitan };

// LoRA target projections, a bit set.
enum LoraTarget : unsigned {
  kLoraQ = 1, kLoraK = 2, kLoraV = 4, kLoraO = 8, kLoraGate = 16, kLoraUp = 32, kLoraDown = 64,
  kLoraAllLinear = 127,
};

// Constants of the memory model that a calibration profile may override.
struct MemoryConstants {
  // CUDA context, kernels and library workspaces per GPU (what nvidia-smi shows beyond
  // tensors). Default from measured PyTorch 2.x processes; see README "memory model".
  double overhead_bytes = 0.8 * 1024.0 * 1024.0 * 1024.0;
  // Caching-allocator slack over live tensors (max_memory_reserved / max_memory_allocated - 1).
  double fragmentation = 0.08;
};

struct Workload {
  Method method = Method::full;
  Precision precision = Precision::bf16;  // compute/activation precision (mixed precision)
  bool pure_bf16 = false;                 // train without fp32 master weights
  WeightFormat weight_format = WeightFormat::native;  // storage of frozen/inference weights; native = precision
  Optimizer optimizer = Optimizer::adamw;
  int lora_rank = 16;
  unsigned lora_targets = kLoraAllLinear;
  bool lora_dropout = false;              // lora_dropout > 0 keeps a dropped copy of each target's input
  bool train_embeddings = false;          // LoRA/QLoRA: also train embeddings and lm_head
  bool double_quant = false;              // QLoRA double quantisation of the absmax constants
  QloraBackend qlora_backend = QloraBackend::bitsandbytes;
  ActivationProfile activations = ActivationProfile::hf;
  int trainable_layers = 0;               // freeze: train only the last K layers
  std::int64_t micro_batch = 1;           // sequences per GPU per step (inference: concurrent sequences)
  std::int64_t seq_len = 2048;            // tokens per sequence (inference: context length)
  Attention attention = Attention::sdpa;
  Checkpointing checkpointing = Checkpointing::none;
  Loss loss = Loss::standard;             // standard: fp32 upcast + log-softmax of all logits
  bool optimizer_in_backward = false;     // gradients applied as produced (never all resident)
  bool dropout = false;                   // dropout > 0 in the model keeps masks and dropped copies
  // torch.autocast over fp32 weights (Hugging Face Trainer fp16/bf16, accelerate): fp32 weights
  // and gradients, no separate master copy, plus the 16-bit weight copies cached in forward.
  bool autocast = false;
  int gpus = 1;
  Sharding sharding = Sharding::ddp;
  Offload offload = Offload::none;
  int tensor_parallel = 1;
  // Pipeline stages (layers split across pp GPUs, 1F1B schedule), interleaved model chunks per
  // stage (Megatron's virtual pipeline), context parallelism (each sequence split across cp
  // GPUs) and Megatron sequence parallelism (norm/dropout activations split across the TP group).
  // GPUs = tensor_parallel x pipeline_parallel x context_parallel x data-parallel replicas.
  int pipeline_parallel = 1;
  int virtual_pipeline = 1;
  int context_parallel = 1;
  bool sequence_parallel = false;
  // Expert parallelism (MoE): experts split across ep GPUs of the data-parallel group, tokens
  // sent to them and back by all-to-all.
  int expert_parallel = 1;
  KvDtype kv_cache_dtype = KvDtype::native;
  MemoryConstants constants;
};

bool is_training(Method m);
// Data-parallel replicas: GPUs / (tensor x pipeline x context parallel), at least 1.
int data_parallel(const Workload& w);
// LoRA or QLoRA: a frozen base with trained adapters.
bool is_lora(Method m);

const char* to_string(Method v);
const char* to_string(Precision v);
const char* to_string(WeightFormat v);
const char* to_string(Optimizer v);
const char* to_string(Attention v);
const char* to_string(Checkpointing v);
const char* to_string(Sharding v);
const char* to_string(Offload v);
const char* to_string(KvDtype v);
const char* to_string(Loss v);
const char* to_string(QloraBackend v);
const char* to_string(ActivationProfile v);

// Parsers for the CLI and spec files; nullopt on an unknown name.
std::optional<Method> method_from_string(const std::string& s);
std::optional<Precision> precision_from_string(const std::string& s);
std::optional<WeightFormat> weight_format_from_string(const std::string& s);
std::optional<Optimizer> optimizer_from_string(const std::string& s);
std::optional<Attention> attention_from_string(const std::string& s);
std::optional<Checkpointing> checkpointing_from_string(const std::string& s);
std::optional<Sharding> sharding_from_string(const std::string& s);
std::optional<Offload> offload_from_string(const std::string& s);
std::optional<KvDtype> kv_dtype_from_string(const std::string& s);
std::optional<Loss> loss_from_string(const std::string& s);
std::optional<QloraBackend> qlora_backend_from_string(const std::string& s);
std::optional<ActivationProfile> activation_profile_from_string(const std::string& s);
// Generic forms over the same tables, so every command accepts the same spellings and lists
// the same choices: parse_enum<Method>("lora"), enum_choices<Method>() == "full, lora, ...".
// Weight formats also accept "none" for native.
template <class E>
std::optional<E> parse_enum(const std::string& s);
template <class E>
std::string enum_choices();

// "q,k,v,o" or "all-linear"; nullopt names the bad part in `bad`.
std::optional<unsigned> lora_targets_from_string(const std::string& s, std::string* bad);

}  // namespace gpuplan
