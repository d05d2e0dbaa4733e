#include "gpuplan/workload.hpp"
#include "gpuplan/engine_support.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>

namespace gpuplan {
namespace {

// One table per enum keeps names, printing and parsing in step.
template <class E, std::size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

constexpr Names<Method, 6> kMethods{{{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"},
                                     {Method::freeze, "freeze"}, {Method::inference, "inference"},
                                     {Method::pretrain, "pretrain"}}};
constexpr Names<Precision, 4> kPrecisions{
    {{Precision::fp32, "fp32"}, {Precision::fp16, "fp16"}, {Precision::bf16, "bf16"}, {Precision::fp8, "fp8"}}};
constexpr Names<WeightFormat, 10> kWeightFormats{{{WeightFormat::native, "native"}, {WeightFormat::fp32, "fp32"},
                                                  {WeightFormat::fp16, "fp16"}, {WeightFormat::bf16, "bf16"},
                                                  {WeightFormat::fp8, "fp8"}, {WeightFormat::int8, "int8"},
                                                  {WeightFormat::nf4, "nf4"}, {WeightFormat::fp4, "fp4"},
                                                  {WeightFormat::int4_gptq, "int4-gptq"},
                                                  {WeightFormat::int4_awq, "int4-awq"}}};
constexpr Names<Optimizer, 7> kOptimizers{{{Optimizer::adamw, "adamw"}, {Optimizer::adamw_8bit, "adamw-8bit"},
                                           {Optimizer::paged_adamw_8bit, "paged-adamw-8bit"},
                                           {Optimizer::sgd, "sgd"}, {Optimizer::sgd_momentum, "sgd-momentum"},
                                           {Optimizer::adafactor, "adafactor"}, {Optimizer::lion, "lion"}}};
constexpr Names<Attention, 3> kAttention{
    {{Attention::eager, "eager"}, {Attention::sdpa, "sdpa"}, {Attention::flash, "flash"}}};
constexpr Names<Checkpointing, 3> kCheckpointing{
    {{Checkpointing::none, "none"}, {Checkpointing::selective, "selective"}, {Checkpointing::full, "full"}}};
constexpr Names<Sharding, 5> kSharding{{{Sharding::ddp, "ddp"}, {Sharding::zero1, "zero1"}, {Sharding::zero2, "zero2"},
                                        {Sharding::zero3, "zero3"}, {Sharding::fsdp, "fsdp"}}};
constexpr Names<Offload, 3> kOffload{
    {{Offload::none, "none"}, {Offload::optimizer, "optimizer"}, {Offload::optimizer_params, "optimizer+params"}}};
constexpr Names<KvDtype, 5> kKv{{{KvDtype::native, "native"}, {KvDtype::fp16, "fp16"}, {KvDtype::bf16, "bf16"},
                                 {KvDtype::fp8, "fp8"}, {KvDtype::int8, "int8"}}};
constexpr Names<Loss, 3> kLoss{{{Loss::standard, "standard"}, {Loss::chunked, "chunked"}, {Loss::fused, "fused"}}};
constexpr Names<QloraBackend, 2> kQloraBackends{{{QloraBackend::bitsandbytes, "bitsandbytes"}, {QloraBackend::fused, "fused"}}};
constexpr Names<ActivationProfile, 3> kActivationProfiles{
    {{ActivationProfile::hf, "hf"}, {ActivationProfile::megatron, "megatron"}, {ActivationProfile::torchtitan, "torchtitan"}}};

template <class E, std::size_t N>
const char* name_of(const Names<E, N>& names, E v) {
  for (const auto& [e, n] : names)
    if (e == v) return n;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> parse(const Names<E, N>& names, const std::string& s) {
  for (const auto& [e, n] : names)
    if (s == n) return e;
  return std::nullopt;
}

}  // namespace

bool is_training(Method m) { return m != Method::inference; }

int data_parallel(const Workload& w) {
  const long model_parallel = static_cast<long>(std::max(1, w.tensor_parallel)) * std::max(1, w.pipeline_parallel) *
                              std::max(1, w.context_parallel);
  return static_cast<int>(std::max(1L, w.gpus / model_parallel));
}
bool is_lora(Method m) { return m == Method::lora || m == Method::qlora; }

std::string offload_problem(const Workload& w) {
  if (w.offload == Offload::none || !is_training(w.method)) return "";
  if (w.optimizer == Optimizer::adamw_8bit || w.optimizer == Optimizer::paged_adamw_8bit)
    return "an 8-bit optimizer (bitsandbytes) steps on the GPU: DeepSpeed's and FSDP's CPU offload cannot run it";
  const bool zero3 = w.sharding == Sharding::zero3 || w.sharding == Sharding::fsdp;
  if (w.offload == Offload::optimizer_params && !zero3) return "optimizer+params offload needs --sharding zero3 or fsdp";
  if (w.sharding == Sharding::ddp && w.gpus > 1)
    return "offload on several GPUs needs sharded states (--sharding zero1, zero2, zero3 or fsdp): DDP has no offload";
  return "";
}

const char* to_string(Method v) { return name_of(kMethods, v); }
const char* to_string(Precision v) { return name_of(kPrecisions, v); }
const char* to_string(WeightFormat v) { return name_of(kWeightFormats, v); }
const char* to_string(Optimizer v) { return name_of(kOptimizers, v); }
const char* to_string(Attention v) { return name_of(kAttention, v); }
const char* to_string(Checkpointing v) { return name_of(kCheckpointing, v); }
const char* to_string(Sharding v) { return name_of(kSharding, v); }
const char* to_string(Offload v) { return name_of(kOffload, v); }
const char* to_string(KvDtype v) { return name_of(kKv, v); }
const char* to_string(Loss v) { return name_of(kLoss, v); }
const char* to_string(QloraBackend v) { return name_of(kQloraBackends, v); }
const char* to_string(ActivationProfile v) { return name_of(kActivationProfiles, v); }

std::optional<Method> method_from_string(const std::string& s) { return parse(kMethods, s); }
std::optional<Precision> precision_from_string(const std::string& s) { return parse(kPrecisions, s); }
std::optional<WeightFormat> weight_format_from_string(const std::string& s) {
  return s == "none" ? WeightFormat::native : parse(kWeightFormats, s);
}
std::optional<Optimizer> optimizer_from_string(const std::string& s) { return parse(kOptimizers, s); }
std::optional<Attention> attention_from_string(const std::string& s) { return parse(kAttention, s); }
std::optional<Checkpointing> checkpointing_from_string(const std::string& s) { return parse(kCheckpointing, s); }
std::optional<Sharding> sharding_from_string(const std::string& s) { return parse(kSharding, s); }
std::optional<Offload> offload_from_string(const std::string& s) { return parse(kOffload, s); }
std::optional<KvDtype> kv_dtype_from_string(const std::string& s) { return parse(kKv, s); }
std::optional<Loss> loss_from_string(const std::string& s) { return parse(kLoss, s); }
std::optional<QloraBackend> qlora_backend_from_string(const std::string& s) { return parse(kQloraBackends, s); }
std::optional<ActivationProfile> activation_profile_from_string(const std::string& s) { return parse(kActivationProfiles, s); }

namespace {
template <class E, std::size_t N>
std::string join_names(const Names<E, N>& names) {
  std::string out;
  for (const auto& [e, n] : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}
}  // namespace

#define GPUPLAN_ENUM_TABLE(E, table, parser)                                        \
  template <>                                                                        \
  std::optional<E> parse_enum<E>(const std::string& s) { return parser(s); }         \
  template <>                                                                        \
  std::string enum_choices<E>() { return join_names(table); }
GPUPLAN_ENUM_TABLE(Method, kMethods, method_from_string)
GPUPLAN_ENUM_TABLE(Precision, kPrecisions, precision_from_string)
GPUPLAN_ENUM_TABLE(WeightFormat, kWeightFormats, weight_format_from_string)
GPUPLAN_ENUM_TABLE(Optimizer, kOptimizers, optimizer_from_string)
GPUPLAN_ENUM_TABLE(Attention, kAttention, attention_from_string)
GPUPLAN_ENUM_TABLE(Checkpointing, kCheckpointing, checkpointing_from_string)
GPUPLAN_ENUM_TABLE(Sharding, kSharding, sharding_from_string)
GPUPLAN_ENUM_TABLE(Offload, kOffload, offload_from_string)
GPUPLAN_ENUM_TABLE(KvDtype, kKv, kv_dtype_from_string)
GPUPLAN_ENUM_TABLE(Loss, kLoss, loss_from_string)
GPUPLAN_ENUM_TABLE(QloraBackend, kQloraBackends, qlora_backend_from_string)
GPUPLAN_ENUM_TABLE(ActivationProfile, kActivationProfiles, activation_profile_from_string)
#undef GPUPLAN_ENUM_TABLE

std::optional<unsigned> lora_targets_from_string(const std::string& s, std::string* bad) {
  if (s == "all-linear" || s == "all") return kLoraAllLinear;
  unsigned out = 0;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part == "q") out |= kLoraQ;
    else if (part == "k") out |= kLoraK;
    else if (part == "v") out |= kLoraV;
    else if (part == "o") out |= kLoraO;
    else if (part == "gate") out |= kLoraGate;
    else if (part == "up") out |= kLoraUp;
    else if (part == "down") out |= kLoraDown;
    else {
      if (bad) *bad = part;
      return std::nullopt;
    }
  }
  if (out == 0) {
    if (bad) *bad = s;
    return std::nullopt;
  }
  return out;
}

}  // namespace gpuplan
