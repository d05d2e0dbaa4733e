#include "io/render/offer_report.hpp"

#include <algorithm>
#include <cmath>

#include "io/render/exclusion_text.hpp"
#include "io/render/format.hpp"
#include "io/render/pipeline_render.hpp"

namespace gpuplan::io {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void add_once(std::vector<std::string>& v, const std::string& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// "1", "8 ddp", "8 fsdp*" (* = sharded to fit).
std::string run_as(const PricedOffer& p) {
  const Workload& w = p.eval.workload;
  if (w.gpus == 1) return "1";
  if (!is_training(w.method)) {
    // Inference: the replica's split; the rest of the GPUs are replicas.
    std::string s = std::to_string(w.gpus) + " tp" + std::to_string(std::max(1, w.tensor_parallel));
    if (w.pipeline_parallel > 1) s += "xpp" + std::to_string(w.pipeline_parallel);
    return s + (p.eval.resharded ? "*" : "");
  }
  return std::to_string(w.gpus) + " " + to_string(w.sharding) + (p.eval.resharded ? "*" : "");
}

nlohmann::json spot_json(const SpotOutcome& s) {
  return {{"preemptions_per_hour", s.preemptions_per_hour},
          {"checkpoint_interval_seconds", s.checkpoint_interval_seconds},
          {"expected_preemptions", s.expected_preemptions},
          {"checkpoint_overhead_seconds", s.checkpoint_overhead_seconds},
          {"lost_work_seconds", s.lost_work_seconds},
          {"p_miss_deadline", s.p_miss_deadline ? nlohmann::json(*s.p_miss_deadline) : nlohmann::json()},
          {"method", "closed form: Poisson preemptions, Young interval"}};
}

void add_run_cost(nlohmann::json& j, const PricedOffer& p) {
  const OfferEvaluation& e = p.eval;
  const RunCost& c = *e.cost;
  j["instances"] = c.instances;
  j["gpus_billed"] = c.gpus_billed;
  j["wall_seconds"] = c.wall_seconds;
  j["billed_seconds"] = c.billed_seconds;
  j["gpu_hours"] = c.gpu_hours;
  j["steps"] = e.steps;
  j["tokens"] = e.tokens;
  j["breakdown"] = {{"compute", *p.compute}, {"storage", *p.storage}, {"egress", *p.egress}, {"tax", *p.tax}};
  j["storage_priced"] = c.storage_priced;
  j["egress_priced"] = c.egress_priced;
  if (c.spot) j["spot"] = spot_json(*c.spot);
}

}  // namespace

std::string cached_prices_note(const std::vector<PricedOffer>& offers, const RunSettings& run) {
  std::vector<const Provider*> seen;
  std::string list;
  for (const auto& p : offers) {
    if (p.provider->cached_at.empty() || std::find(seen.begin(), seen.end(), p.provider) != seen.end()) continue;
    seen.push_back(p.provider);
    const auto age = prices_age_days(*p.provider, run.today);
    std::string when = p.provider->cached_at;
    if (when.size() == 20) when = when.substr(0, 10) + " " + when.substr(11, 5) + " UTC";
    list += (list.empty() ? "" : "; ") + p.provider->id + " from " + p.provider->source + ", fetched " + when +
            (age ? " (" + std::to_string(*age) + (*age == 1 ? " day" : " days") + " old)" : "");
  }
  if (list.empty()) return "";
  return "prices from `gpuplan prices update`: " + list + "; other providers' from the shipped sheets (--offline: shipped only)";
}

nlohmann::json offer_json(const PricedOffer& p, const RunSettings& run) {
  const OfferEvaluation& e = p.eval;
  nlohmann::json j = {{"provider", p.provider->id},
                      {"offer", p.offer->id},
                      {"gpu", p.offer->gpu},
                      {"region", p.offer->region},
                      {"pricing", to_string(run.spec.bill.pricing)},
                      {"gpus", e.workload.gpus},
                      {"sharding", to_string(e.workload.sharding)},
                      {"resharded", e.resharded},
                      {"currency", run.currency},
                      {"prices_as_of", p.provider->prices_as_of},
                      {"prices_age_days", nullptr},
                      {"prices_stale", prices_stale(*p.provider, run)},
                      {"tax_basis", to_string(run.spec.bill.input_tax_credit ? TaxBasis::exclusive : run.spec.bill.tax_basis)},
                      {"sheet_tax_basis", to_string(p.provider->tax_basis)},
                      {"tax_included", tax_included(*p.provider, run)},
                      {"country", p.offer->country_code()},
                      {"rate_per_hour", p.rate_per_hour},
                      {"per_step", p.per_step},
                      {"per_million_tokens", p.per_million_tokens},
                      {"step_seconds", e.time.step_seconds},
                      {"tokens_per_second", e.time.tokens_per_second},
                      {"mfu", e.time.mfu},
                      {"scaling_efficiency", e.time.scaling_efficiency},
                      {"per_gpu_bytes", static_cast<std::int64_t>(std::llround(e.per_gpu_bytes))},
                      {"pareto", p.pareto},
                      {"same_price_regions", p.same_price_regions}};
  if (!is_training(e.workload.method)) {
    j["tensor_parallel"] = std::max(1, e.workload.tensor_parallel);
    j["pipeline_parallel"] = std::max(1, e.workload.pipeline_parallel);
    j["replicas"] = inference_replicas(e.workload);
    j["kv_cache_dtype"] = kv_cache_dtype_name(e.workload);
  }
  if (e.hfu_asked > 1) j["hfu_clamped_from"] = e.hfu_asked;
  {
    // Training's collectives and an inference replica's TP all-reduces run over these links.
    const Links l = job_links(e.workload, *p.offer, *p.gpu, run.spec);
    j["links"] = {{"gpus_per_node", l.gpus_per_node},
                  {"intra_node_gbps", l.intra_node_gbps},
                  {"inter_node_gbps", l.inter_node_gbps > 0 ? l.inter_node_gbps : kUnknownInterNodeGbps},
                  {"network_source", to_string(network_source(offer_links(*p.offer, *p.gpu), run.spec.node_shape))},
                  {"network_assumed", e.network_assumed},
                  {"node_shape_stated", run.spec.node_shape.stated()}};
  }
  if (const auto age = prices_age_days(*p.provider, run.today)) j["prices_age_days"] = *age;
  // Which sheet priced it: the price cache's (`gpuplan prices update`) or a catalog's.
  j["prices_source"] = p.provider->source;
  j["prices_from_cache"] = !p.provider->cached_at.empty();
  j["prices_cached_at"] = p.provider->cached_at.empty() ? nlohmann::json() : nlohmann::json(p.provider->cached_at);
  if (p.offer->spot_low && p.offer->spot_high)
    j["spot_range_per_gpu_hour"] = {{"low", *p.offer->spot_low}, {"high", *p.offer->spot_high},
                                    {"zones", p.offer->spot_zones}, {"currency", p.provider->currency}};
  j["total"] = p.total ? nlohmann::json(*p.total) : nlohmann::json();
  j["meets_deadline"] = p.meets_deadline ? nlohmann::json(*p.meets_deadline) : nlohmann::json();
  j["meets_budget"] = p.meets_budget ? nlohmann::json(*p.meets_budget) : nlohmann::json();
  if (e.cost) add_run_cost(j, p);
  else j["wall_seconds"] = nullptr;
  j["pipeline"] = e.pipeline ? pipeline_json(*e.pipeline) : nlohmann::json(nullptr);
  return j;
}

Table offers_table(const std::vector<PricedOffer>& offers, const RunSettings& run, const Workload&, const std::string& title,
                   MoneyStyle style) {
  Table t;
  t.title = title;
  const bool totals = run.has_work();
  const std::string cur = run.currency;
  t.columns = {"provider", "offer", "gpu", "gpus", "tok/s", "mfu", "per_hour", "per_1M_tok"};
  t.csv_columns = {"provider", "offer", "gpu", "gpus", "sharding", "tokens_per_second", "mfu",
                   "per_hour_" + cur, "per_million_tokens_" + cur};
  if (totals) {
    t.columns.insert(t.columns.end(), {"wall", "total " + cur});
    t.csv_columns.insert(t.csv_columns.end(), {"wall_seconds", "total_" + cur, "meets_budget", "meets_deadline"});
  } else {
    t.columns.back() += " " + cur;
  }
  t.csv_columns.push_back("pareto");  // in the table, a * after the last money figure
  for (const auto& p : offers) {
    const OfferEvaluation& e = p.eval;
    const bool training = is_training(e.workload.method);
    std::vector<std::string> row = {p.provider->id + (prices_stale(*p.provider, run) ? "!" : ""),
                                    p.offer->id + (p.same_price_regions ? " (+" + std::to_string(p.same_price_regions) + " regions)" : ""),
                                    p.offer->gpu, run_as(p),
                                    num(e.time.tokens_per_second, 0), training ? num(100 * e.time.mfu, 0) + "%" : "-",
                                    money(p.rate_per_hour, cur, style), money(p.per_million_tokens, cur, style)};
    std::vector<std::string> csv = {p.provider->id, p.offer->id, p.offer->gpu, std::to_string(e.workload.gpus),
                                    to_string(e.workload.sharding), raw(e.time.tokens_per_second), training ? raw(e.time.mfu) : "",
                                    raw(p.rate_per_hour), raw(p.per_million_tokens)};
    if (totals) {
      std::string total = p.total ? money(*p.total, cur, style) : "-";
      if (p.meets_budget && !*p.meets_budget) total += " (over budget)";
      if (p.meets_deadline && !*p.meets_deadline) total += " (late)";
      row.insert(row.end(), {e.cost ? duration(e.cost->wall_seconds) : "-", total});
      auto yes_no = [](const std::optional<bool>& b) { return b ? (*b ? "true" : "false") : ""; };
      csv.insert(csv.end(), {e.cost ? raw(e.cost->wall_seconds) : "", raw(p.total), yes_no(p.meets_budget), yes_no(p.meets_deadline)});
    }
    if (p.pareto) row.back() += " *";
    csv.push_back(p.pareto ? "true" : "false");
    t.rows.push_back(std::move(row));
    t.csv_rows.push_back(std::move(csv));
  }
  t.align.assign(t.columns.size(), Align::right);
  t.align[0] = t.align[1] = t.align[2] = Align::left;
  t.cuttable = {1, 0};  // offer ids run to 50 characters on SkyPilot sheets
  return t;
}

Table excluded_table(const std::vector<PricedOffer>& offers, Pricing pricing) {
  Table t;
  t.title = "Excluded offers";
  t.columns = {"provider", "offer", "gpu", "why"};
  t.align = {Align::left, Align::left, Align::left, Align::left};
  for (const auto& p : offers) t.rows.push_back({p.provider->id, p.offer->id, p.offer->gpu, exclusion_text(p.eval, *p.gpu, pricing)});
  return t;
}

nlohmann::json excluded_json(const std::vector<PricedOffer>& offers, Pricing pricing) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : offers)
    a.push_back({{"provider", p.provider->id}, {"offer", p.offer->id}, {"gpu", p.offer->gpu}, {"why", exclusion_text(p.eval, *p.gpu, pricing)}});
  return a;
}

std::vector<std::string> offer_notes(const std::vector<PricedOffer>& offers, const Workload& asked, bool gpus_fixed,
                                     const RunSettings& run) {
  std::vector<std::string> storage, egress, no_rate, no_network, bnb_on_amd, network_applied, network_kept, notes;
  bool spread = false, resharded = false, split = false, stale = false;
  double hfu_asked = 0;
  for (const auto& p : offers) {
    const OfferEvaluation& e = p.eval;
    stale = stale || prices_stale(*p.provider, run);
    if (e.network_assumed) add_once(no_network, p.offer->key());
    if (run.spec.node_shape.network_gbps > 0) {
      const bool applied = network_source(offer_links(*p.offer, *p.gpu), run.spec.node_shape) == NetworkSource::stated;
      add_once(applied ? network_applied : network_kept, p.offer->key());
    }
    if (e.workload.method == Method::qlora && e.workload.qlora_backend == QloraBackend::bitsandbytes && p.gpu->vendor == "amd")
      add_once(bnb_on_amd, p.gpu->id);
    spread = spread || e.workload.gpus != asked.gpus;
    (is_training(e.workload.method) ? resharded : split) |= e.resharded;
    hfu_asked = std::max(hfu_asked, e.hfu_asked);
    if (!e.cost) continue;
    if (e.cost->spot && e.cost->spot->preemptions_per_hour == 0) add_once(no_rate, p.provider->id);
    if (!e.cost->storage_priced) add_once(storage, p.provider->id);
    if (!e.cost->egress_priced) add_once(egress, p.provider->id);
  }
  if (spread && !gpus_fixed)
    notes.push_back("--gpus not given: each offer runs the job on every GPU its instance bills (give --gpus to fix the count)");
  if (resharded)
    notes.push_back("* " + std::string(to_string(asked.sharding)) +
                    " replicas do not fit those offers' GPUs: priced with the model states sharded (fsdp)");
  if (auto cached = cached_prices_note(offers, run); !cached.empty()) notes.push_back(std::move(cached));
  if (split)
    notes.push_back("* the model does not fit one GPU: its weights are split by tensor parallelism (the smallest TP that fits); "
                    "replicas = GPUs / (TP x PP), each serving --batch sequences");
  if (!is_training(asked.method))
    notes.push_back(std::string("KV cache in ") + kv_cache_dtype_name(asked) +
                    (asked.kv_cache_dtype == KvDtype::native ? " (the model's dtype; --kv-cache-dtype fp8 halves it)" : ""));
  if (hfu_asked > 1)
    notes.push_back("--mfu with this recomputation would need hardware utilisation " + num(hfu_asked, 2) +
                    ", above the peak: clamped to 1 (the model FLOPs utilisation is lower than asked)");
  if (stale)
    notes.push_back("! = the sheet's prices are older than " + std::to_string(run.stale_after_days) +
                    " days (--stale-after) or undated: check them before deciding");
  if (!storage.empty()) notes.push_back("storage is not priced on these sheets (left out of their totals): " + join(storage));
  if (!no_network.empty())
    notes.push_back("warning: the job spans nodes and no network is known (neither the sheet's network_gbps nor --network): 10 GbE "
                    "(1.25 GB/s per node) assumed, slow: " + join(no_network) +
                    (run.spec.node_shape.gpus_per_node > 0 ? "" : " (several GPUs in one machine: give --node-shape)"));
  if (!network_applied.empty() || !network_kept.empty())
    notes.push_back("--network " + num(run.spec.node_shape.network_gbps, 0) + " Gb/s is your machines' network: applied to " +
                    (network_applied.empty() ? std::string("no offer") : join(network_applied)) +
                    (network_kept.empty() ? "" : "; the sheet's published network kept for " + join(network_kept)));
  if (!bnb_on_amd.empty())
    notes.push_back("bitsandbytes QLoRA on AMD (" + join(bnb_on_amd) +
                    "): ROCm support is official from bitsandbytes 0.50 (experimental in 0.48 and 0.49, per its installation guide); "
                    "its dequantisation speed on ROCm is not measured, so the time uses the NVIDIA fit");
  if (!no_rate.empty())
    notes.push_back("no preemption rate on these sheets: spot is priced as if never preempted (give --preemptions-per-hour): " +
                    join(no_rate));
  if (!egress.empty()) notes.push_back("egress is not priced on these sheets (left out of their totals): " + join(egress));
  for (auto& n : pipeline_notes(offers)) notes.push_back(std::move(n));
  return notes;
}

}  // namespace gpuplan::io
