// serve's search over offers: for each, the tensor-parallel degree whose fleet meets the
// targets at the lowest monthly cost; then the offers ranked and the best one's roofline.
#include <algorithm>
#include <cmath>

#include "gpuplan/evaluate.hpp"
#include "gpuplan/serving.hpp"

namespace gpuplan {

namespace {

std::vector<int> degrees(const ServingJob& j, int per_instance) {
  std::vector<int> tps;
  if (j.tensor_parallel > 0) tps.push_back(j.tensor_parallel);
  else
    for (int tp : {1, 2, 4, 8})
      if (tp <= per_instance && j.model.attention_heads % tp == 0) tps.push_back(tp);
  return tps;
}

ServingConfig with_tp(const ServingConfig& c, int tp) {
  ServingConfig cfg = c;
  cfg.workload.tensor_parallel = tp;
  cfg.workload.gpus = tp;
  return cfg;
}

ServingExclusion refusal_on(const ServingCandidate& w, ServingRefusal r, int tp) {
  ServingExclusion e;
  e.where = w;
  e.refusal = r;
  e.tp = tp;
  return e;
}

bool better(const ServingOption& a, const ServingOption& b) {
  if (a.fleet.meets_latency != b.fleet.meets_latency) return a.fleet.meets_latency;
  return a.cost.per_month < b.cost.per_month;
}

// One degree on one offer; nullopt with the reason in `refused` when it cannot serve.
std::optional<ServingOption> serve_at(const ServingJob& j, const ServingCandidate& w, const Links& links, int tp,
                                      ServingExclusion& refused) {
  ServingConfig cfg = with_tp(j.cfg, tp);
  cfg.links = links;
  ServingOption o;
  o.where = w;
  o.tp = tp;
  o.plan = plan_replica(j.model, j.params, *w.gpu, cfg, j.req, j.targets);
  if (!o.plan.capacity.fits) {
    refused = refusal_on(w, ServingRefusal::cannot_host, tp);
    refused.shortfall = o.plan.capacity.shortfall;
    return std::nullopt;
  }
  Scaling sc = j.scaling;
  const double startup = j.bill.startup_seconds.value_or(w.provider->startup_seconds.value_or(0.0));
  o.cold_start_seconds =
      j.cold_start_seconds.value_or(startup + o.plan.capacity.weight_bytes * tp / j.weight_load_bytes_per_second);
  sc.cold_start_seconds = o.cold_start_seconds;
  o.fleet = plan_fleet(j.model, j.params, *w.gpu, o.plan, cfg, j.req, j.traffic, sc, j.targets);
  if (o.fleet.beyond_limit) {
    refused = refusal_on(w, ServingRefusal::beyond_fleet, tp);
    refused.shortfall = o.fleet.latency_shortfall;
    return std::nullopt;
  }
  auto cost = price_serving(*w.offer, *w.provider, cfg, o.plan, o.fleet, sc, j.bill);
  if (!cost) {
    refused = refusal_on(w, ServingRefusal::no_price, tp);
    refused.pricing = j.bill.pricing;
    return std::nullopt;
  }
  for (double* v : {&cost->per_month, &cost->rate_per_hour, &cost->per_million_output_tokens, &cost->per_request,
                    &cost->at_full_load_per_million_output_tokens})
    *v *= w.currency_rate;
  o.cost = *cost;
  return o;
}

}  // namespace

std::optional<ServingOption> serve_on(const ServingJob& j, const ServingCandidate& w, ServingExclusion& refused) {
  // The same links training runs on: the offer's, as a stated node shape restates them. A replica
  // stays inside one node: the instance, or the node a stated shape joins instances into.
  const Links links = shaped_links(offer_links(*w.offer, *w.gpu), j.node_shape, *w.gpu);
  const int per = std::max(1, links.gpus_per_node);
  const std::vector<int> tps = degrees(j, per);
  refused = refusal_on(w, ServingRefusal::no_degree, 1);
  refused.heads = j.model.attention_heads;
  if (!tps.empty() && tps.front() > per) {
    refused = refusal_on(w, ServingRefusal::node_too_small, tps.front());
    refused.gpus_per_node = per;
    refused.stated_node = j.node_shape.gpus_per_node > 0;
  }
  std::optional<ServingOption> best;
  for (int tp : tps) {
    if (tp > per) continue;
    auto o = serve_at(j, w, links, tp, refused);
    if (o && (!best || better(*o, *best))) best = std::move(o);
  }
  return best;
}

ServingSearch search_serving(const ServingJob& j, const std::vector<ServingCandidate>& candidates) {
  ServingSearch out;
  for (const ServingCandidate& c : candidates) {
    ServingExclusion refused;
    if (auto o = serve_on(j, c, refused)) out.options.push_back(std::move(*o));
    else out.excluded.push_back(std::move(refused));
  }
  std::stable_sort(out.options.begin(), out.options.end(), better);
  if (out.options.empty()) return out;
  const ServingOption& b = out.options.front();
  // Past the KV capacity too, up to twice the knee, so the knee shows even where memory binds first.
  const std::int64_t cap = std::max<std::int64_t>(1, b.plan.capacity.max_concurrent_sequences);
  const std::int64_t knee = static_cast<std::int64_t>(b.plan.knee_batch);
  ServingConfig best_cfg = with_tp(j.cfg, b.tp);
  best_cfg.links = shaped_links(offer_links(*b.where.offer, *b.where.gpu), j.node_shape, *b.where.gpu);
  out.roofline = roofline(j.model, j.params, *b.where.gpu, best_cfg, j.req,
                          std::max(cap, std::min<std::int64_t>(2 * knee, 8192)));
  out.roofline_capacity = cap;
  return out;
}

}  // namespace gpuplan
