#include "cli/plan_launch.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <initializer_list>

#include "cli/workload_flags.hpp"
#include "gpuplan/evaluate.hpp"
#include "io/emit/emit.hpp"
#include "io/text/files.hpp"

namespace gpuplan::cli {

namespace {

std::string engines() {
  std::string s;
  for (const char* e : io::kLaunchEngines) s += (s.empty() ? "" : ", ") + std::string(e);
  return s;
}

// Disk for a SkyPilot node: the dataset, the checkpoints kept plus the one being written, the
// base weights downloaded in 16-bit, and 50 GB for the image, packages and caches; in 10 GB steps.
int disk_gb(const ChosenPlan& c) {
  const ParamCounts pc = count_params(c.model);
  const double gb = c.run.spec.dataset_gb + (c.run.spec.keep_checkpoints + 1) * checkpoint_bytes(c.model, pc, c.workload) / 1e9 +
                    2 * pc.total() / 1e9 + 50;
  return static_cast<int>(std::min(1e6, std::ceil(gb / 10) * 10));
}

io::LaunchArch launch_arch(const ModelArch& m) {
  io::LaunchArch a;
  a.id = m.id;
  if (m.params_only) return a;  // layers 0: the architecture is assumed, not known
  a.layers = m.layers;
  a.hidden = m.hidden_size;
  a.ffn = m.intermediate_size;
  a.heads = m.attention_heads;
  a.kv_heads = m.kv_heads;
  a.head_dim = m.head_dim;
  a.vocab = m.vocab_size;
  a.max_positions = m.max_context;
  a.tied = m.tied_embeddings;
  a.gated_mlp = m.mlp == MlpKind::gated;
  a.rmsnorm = m.norm == NormKind::rmsnorm;
  a.qkv_bias = m.qkv_bias;
  a.linear_bias = m.o_bias || m.mlp_bias;
  a.qk_norm = m.qk_norm;
  a.experts = m.experts;
  a.experts_per_token = m.experts_per_token;
  a.unsupported_attention = m.mla() || m.sliding_window > 0 || m.learned_positions > 0 || m.shared_experts > 0 || m.first_dense_layers > 0;
  return a;
}

// The plan's layout, batch and run length.
void launch_layout(const ChosenPlan& c, io::LaunchPlan& lp) {
  const Workload& w = c.workload;
  lp.tensor_parallel = w.tensor_parallel;
  lp.pipeline_parallel = w.pipeline_parallel;
  lp.virtual_pipeline = w.virtual_pipeline;
  lp.context_parallel = w.context_parallel;
  lp.expert_parallel = w.expert_parallel;
  lp.sequence_parallel = w.sequence_parallel;
  lp.data_parallel = data_parallel(w);
  lp.global_batch = lp.micro_batch * lp.grad_accum * lp.data_parallel;
  const double per_step = static_cast<double>(lp.global_batch) * static_cast<double>(lp.seq_len);
  lp.steps = c.run.spec.steps ? static_cast<long long>(std::ceil(*c.run.spec.steps))
                              : static_cast<long long>(std::ceil(c.run.spec.tokens.value_or(0) / per_step));
}

io::LaunchPlan launch_plan(const ChosenPlan& c) {
  const Workload& w = c.workload;
  io::LaunchPlan lp;
  lp.model = c.model.hf_id.empty() ? c.model.id : c.model.hf_id;
  lp.method = to_string(w.method);
  lp.precision = to_string(w.precision);
  lp.optimizer = to_string(w.optimizer);
  lp.sharding = to_string(w.sharding);
  lp.offload = to_string(w.offload);
  lp.checkpointing = to_string(w.checkpointing);
  lp.attention = to_string(w.attention);
  lp.micro_batch = c.best.micro_batch;
  lp.grad_accum = c.best.grad_accum;
  lp.seq_len = w.seq_len;
  lp.gpus = c.best.gpus;
  lp.gpus_per_node = std::max(1, c.offer.offer->gpus);
  lp.nodes = std::max(1, c.best.gpus / lp.gpus_per_node);
  lp.lora_rank = w.lora_rank;
  launch_layout(c, lp);
  lp.arch = launch_arch(c.model);
  lp.provider = c.offer.provider->id;
  lp.cloud = io::skypilot_cloud(lp.provider);
  lp.accelerator = io::skypilot_accelerator_on(*c.offer.gpu, lp.cloud);
  if (lp.accelerator.empty()) {  // not in that cloud's SkyPilot catalog: pin no cloud (launch_notes says so)
    lp.accelerator = io::skypilot_accelerator(*c.offer.gpu);
    lp.cloud.clear();
  }
  const std::string& id = c.offer.offer->id;
  // A SkyPilot price sheet's offers are INSTANCETYPE@REGION: both can be pinned exactly.
  if (const auto at = id.find('@'); at != std::string::npos) lp.instance_type = id.substr(0, at);
  if (lp.instance_type.empty() && !lp.cloud.empty()) lp.instance_type = io::skypilot_instance_type(lp.cloud, id);
  const std::string& region = c.offer.offer->region;
  if (!region.empty() && region != "any" && region != "global") lp.region = region;
  lp.spot = c.pricing == Pricing::spot;
  lp.disk_gb = disk_gb(c);
  lp.hours = c.best.wall_seconds / 3600;
  lp.checkpoint_minutes = c.best.checkpoint_interval_seconds / 60;
  return lp;
}

std::string emit_text(const std::string& engine, const io::LaunchPlan& lp) {
  if (engine == "deepspeed") return io::emit_deepspeed(lp);
  if (engine == "accelerate") return io::emit_accelerate(lp);
  if (engine == "torchrun") return io::emit_torchrun(lp);
  if (engine == "skypilot") return io::emit_skypilot(lp);
  if (engine == "slurm") return io::emit_slurm(lp);
  if (engine == "torchtitan") return io::emit_torchtitan(lp);
  if (engine == "megatron") return io::emit_megatron(lp);
  bad_choice("--emit", engine, engines().c_str());
}

}  // namespace

void add_launch_options(CLI::App& command, LaunchFlags& f) {
  CLI::App& cmd = option_section(command, "Launch files");
  cmd.add_option("--emit", f.emit,
                 "Write the plan's launch configuration: deepspeed | accelerate | torchrun | skypilot | slurm | torchtitan | megatron");
  cmd.add_option("--out", f.out, "File for --emit (replaced atomically; default or -: stdout)");
  cmd.add_option("--head-address", f.head_address,
                 "More than one node (accelerate, torchrun, megatron): address of the rank-0 host");
  cmd.add_option("--port", f.port, "More than one node (accelerate, torchrun, megatron, slurm, skypilot): rendezvous port (default 29500)");
  cmd.add_option("--node-rank", f.node_rank, "accelerate, more than one node: the machine this file is for (default 0 = head)");
}

namespace {

bool one_of(const std::string& engine, std::initializer_list<const char*> engines) {
  for (const char* e : engines)
    if (engine == e) return true;
  return false;
}

// The rendezvous flags are read by some engines' files only, and only when the plan spans
// nodes; anywhere else the file would silently drop them, so they are refused there.
void check_rendezvous_flags(const LaunchFlags& f, int nodes) {
  struct Use {
    const char* flag;
    bool given;
    std::initializer_list<const char*> engines;
  };
  const Use uses[] = {{"--head-address", !f.head_address.empty(), {"accelerate", "torchrun", "megatron"}},
                      {"--port", f.port != 0, {"accelerate", "torchrun", "megatron", "slurm", "skypilot"}},
                      {"--node-rank", f.node_rank != -1, {"accelerate"}}};
  // It lands in a shell script and a YAML file: a host name or an IPv4/IPv6 address only.
  for (char c : f.head_address)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' && c != '[' && c != ']')
      bad_flag("--head-address", "expected a host name or IP address, got \"" + f.head_address + "\"");
  for (const Use& u : uses) {
    if (!u.given) continue;
    if (f.emit.empty()) bad_flag(u.flag, "needs --emit (it sets the launch file's rendezvous)");
    if (nodes <= 1) bad_flag(u.flag, "the plan runs on one node: a single-node launch has no rendezvous to set (give --nodes N)");
    if (!one_of(f.emit, u.engines)) {
      std::string list;
      for (const char* e : u.engines) list += std::string(list.empty() ? "" : ", ") + e;
      bad_flag(u.flag, "the " + f.emit + " file has no place for it (read by: " + list + ")");
    }
  }
}

}  // namespace

void check_launch_engine(const LaunchFlags& f) {
  if (f.emit.empty()) {
    if (!f.out.empty()) bad_flag("--out", "needs --emit");
    check_rendezvous_flags(f, 1);
    return;
  }
  for (const char* e : io::kLaunchEngines)
    if (f.emit == e) return;
  bad_choice("--emit", f.emit, engines().c_str());
}

bool emit_plan_launch(const Context& ctx, const LaunchFlags& f, const ChosenPlan& c, Report& r) {
  if (f.emit.empty()) {
    if (!f.out.empty()) bad_flag("--out", "needs --emit");
    return false;
  }
  io::LaunchPlan lp = launch_plan(c);
  if (f.port != 0) {
    if (f.port < 1 || f.port > 65535) bad_flag("--port", "expected 1 to 65535");
    lp.port = f.port;
  }
  check_rendezvous_flags(f, lp.nodes);
  if (f.node_rank != -1 && (f.node_rank < 0 || f.node_rank >= lp.nodes))
    bad_flag("--node-rank", "the plan has " + std::to_string(lp.nodes) + " node(s): expected 0 to " + std::to_string(lp.nodes - 1));
  lp.node_rank = std::max(f.node_rank, 0);
  lp.head_address = f.head_address;
  // A file that drops a priced setting would launch another job than the one priced.
  if (const std::string why = io::launch_refusal(lp, f.emit); !why.empty()) bad_flag("--emit", why);
  if (f.emit == "accelerate" && lp.nodes > 1 && lp.head_address.empty())
    bad_flag("--head-address", "the plan spans " + std::to_string(lp.nodes) +
                                   " nodes: accelerate needs the address of the machine_rank 0 host (and --node-rank per machine)");
  const std::string text = emit_text(f.emit, lp);
  const std::vector<std::string> notes = io::launch_notes(lp, f.emit);
  if (f.out.empty() || f.out == "-") {
    for (const auto& n : notes) ctx.warn(n);  // stderr: the file alone on stdout, so it can be piped
    std::fwrite(text.data(), 1, text.size(), stdout);
    return true;
  }
  io::write_file_atomic(f.out, text);
  for (const auto& n : notes) r.notes.push_back("note: " + n);
  r.json["launch"] = {{"engine", f.emit}, {"file", f.out}, {"notes", notes}};
  r.notes.push_back("wrote the " + f.emit + " launch configuration to " + f.out);
  return false;
}

}  // namespace gpuplan::cli
