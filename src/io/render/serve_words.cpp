#include "io/render/serve_words.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/units.hpp"

namespace gpuplan::io {

namespace {

// Counts and percentages as the sentences print them: rounded to a whole number, no grouping.
std::string whole(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }
std::string gib(double bytes) { return format_gib(bytes, 1); }

std::string over_target(const std::string& what, const ServingShortfall& s) {
  return what + " is " + whole(1000 * s.value) + " ms, over the " + whole(1000 * s.target) + " ms target";
}

std::string beyond_fleet(const ServingShortfall& s) {
  // replicas_needed is whole already (a ceiling); it is cut, not rounded, and kept inside a long long.
  const std::string replicas = std::to_string(static_cast<long long>(std::min(s.value, 9e18)));
  const int tp = s.gpus_per_replica;
  return "the peak needs " + replicas + " replicas (" + std::to_string(tp) + " GPU" + (tp > 1 ? "s" : "") +
         " each), beyond any sane fleet (limit " + std::to_string(static_cast<long long>(s.target)) + " GPUs)";
}

}  // namespace

std::string shortfall_text(const ServingShortfall& s) {
  switch (s.limit) {
    case ServingLimit::none: return "";
    case ServingLimit::does_not_fit:
      // Weights and workspace can take more than the usable memory: nothing is left, not less than nothing.
      return "weights " + gib(s.weight_bytes) + " + workspace " + gib(s.workspace_bytes) + " leave " +
             gib(std::max(0.0, s.kv_free_bytes)) + " of " + gib(s.usable_bytes) + " usable per GPU; one sequence needs " +
             gib(s.sequence_bytes) + " of KV cache";
    case ServingLimit::no_tensor_throughput: return s.gpu + " has no tensor throughput for this precision in the catalog";
    case ServingLimit::tpot_at_batch_one: return over_target("TPOT at batch 1", s);
    case ServingLimit::ttft_idle: return over_target("TTFT with no queue", s);
    case ServingLimit::beyond_fleet: return beyond_fleet(s);
    case ServingLimit::utilization_cap:
      return "each replica would run at " + whole(100 * s.value) + "% of its capacity, above the " + whole(100 * s.target) + "% cap";
    case ServingLimit::cold_starts: return "cold starts (" + whole(100 * s.value) + "% of requests) push TTFT past the target";
  }
  return "";
}

std::string exclusion_text(const ServingExclusion& e) {
  switch (e.refusal) {
    case ServingRefusal::no_degree:
      return "no tensor-parallel degree divides the model's " + std::to_string(e.heads) + " heads";
    case ServingRefusal::node_too_small:
      return "needs " + std::to_string(e.tp) + " GPUs per replica; the " + (e.stated_node ? "stated node" : "instance") +
             " has " + std::to_string(e.gpus_per_node);
    case ServingRefusal::cannot_host: return shortfall_text(e.shortfall) + (e.tp > 1 ? " (TP" + std::to_string(e.tp) + ")" : "");
    case ServingRefusal::beyond_fleet: return shortfall_text(e.shortfall);
    case ServingRefusal::no_price: return std::string("no ") + to_string(e.pricing) + " price";
  }
  return "";
}

}  // namespace gpuplan::io
