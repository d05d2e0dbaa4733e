#include "gpuplan/job.hpp"

namespace gpuplan {
namespace {

void parallel_rules(const ModelArch& m, const Workload& w, std::vector<JobProblem>& out) {
  const long tp = w.tensor_parallel, pp = w.pipeline_parallel, cp = w.context_parallel;
  if (w.gpus < 1 || w.gpus > 65536) out.push_back({JobRule::gpus_range, "gpus", 65536});
  if (tp < 1 || w.gpus % tp != 0) out.push_back({JobRule::tp_divides_gpus, "tensor_parallel"});
  else if (m.attention_heads > 0 && m.attention_heads % tp != 0)
    out.push_back({JobRule::tp_divides_heads, "tensor_parallel", m.attention_heads});
  if (pp < 1 || pp > m.layers) out.push_back({JobRule::pp_range, "pipeline_parallel", m.layers});
  if (w.virtual_pipeline < 1 || pp * w.virtual_pipeline > m.layers) out.push_back({JobRule::vpp_range, "virtual_pipeline", m.layers});
  if (cp < 1) out.push_back({JobRule::cp_positive, "context_parallel"});
  if (tp >= 1 && pp >= 1 && cp >= 1 && w.gpus % (tp * pp * cp) != 0) out.push_back({JobRule::layout_divides_gpus, "gpus"});
  const int ep = w.expert_parallel;
  if (ep < 1 || (ep > 1 && (m.experts % ep != 0 || (tp * pp >= 1 && w.gpus / (tp * pp) % ep != 0))))
    out.push_back({JobRule::ep_divides, "expert_parallel", m.experts});
}

void method_rules(const ModelArch& m, const Workload& w, const JobChecks& checks, std::vector<JobProblem>& out) {
  if (w.method == Method::qlora && w.precision == Precision::fp32) out.push_back({JobRule::qlora_needs_16bit, "precision"});
  if (w.method == Method::freeze && (w.trainable_layers < 1 || w.trainable_layers > m.layers))
    out.push_back({JobRule::freeze_layers_range, "trainable_layers", m.layers});
  if (w.pure_bf16 && w.precision != Precision::bf16) out.push_back({JobRule::pure_bf16_needs_bf16, "pure_bf16"});
  if (w.weight_format != WeightFormat::native && w.method != Method::inference && w.method != Method::qlora)
    out.push_back({JobRule::quant_needs_frozen_base, "quant"});
  if (m.max_context > 0 && w.seq_len > m.max_context)
    out.push_back({JobRule::seq_beyond_context, "seq_len", m.max_context, checks.allow_long_context});
  if (w.sharding != Sharding::ddp && w.gpus == 1) out.push_back({JobRule::shards_nothing, "sharding", 0, true});
  if (w.offload == Offload::optimizer_params && w.sharding != Sharding::zero3 && w.sharding != Sharding::fsdp)
    out.push_back({JobRule::offload_params_needs_shards, "offload"});
}

}  // namespace

std::vector<JobProblem> validate_workload(const ModelArch& m, const Workload& w, const JobChecks& checks) {
  std::vector<JobProblem> out;
  parallel_rules(m, w, out);
  method_rules(m, w, checks, out);
  return out;
}

}  // namespace gpuplan
