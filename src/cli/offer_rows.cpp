#include "cli/offer_rows.hpp"

#include <algorithm>
#include <cmath>

#include "cli/common.hpp"
#include "cli/format_values.hpp"

namespace gpuplan::cli {

namespace {

bool wanted(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

std::string duration(double seconds) {
  if (seconds < 120) return num(seconds, 1) + "s";
  if (seconds < 7200) return num(seconds / 60, 1) + "m";
  if (seconds < 3 * 86400) return num(seconds / 3600, 1) + "h";
  return num(seconds / 86400, 1) + "d";
}

std::string money(double v) { return v >= 100 ? num(v, 0) : v >= 1 ? num(v, 2) : num(v, 4); }

}  // namespace

OfferSet evaluate_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w,
                         const RunSettings& run, const OfferFilter& filter) {
  OfferSet set;
  for (const Provider& p : c.providers) {
    if (!wanted(filter.providers, p.id)) continue;
    for (const Offer& o : p.offers) {
      if (!wanted(filter.gpus, o.gpu)) continue;
      if (!filter.offers.empty() && !wanted(filter.offers, o.key())) continue;
      if (!filter.regions.empty() &&
          std::none_of(filter.regions.begin(), filter.regions.end(), [&](const std::string& r) { return o.in_region(r); }))
        continue;
      if (!filter.countries.empty() &&
          std::none_of(filter.countries.begin(), filter.countries.end(), [&](const std::string& k) { return o.in_country(k); }))
        continue;
      const auto g = c.find_gpu(o.gpu);
      if (!g.found) continue;  // the loader guarantees offers name known GPUs
      PricedOffer row;
      row.provider = &p;
      row.offer = &o;
      row.gpu = g.found;
      if (filter.max_gpus > 0) {
        const int per = std::max(1, o.gpus);
        const int billed = run.spec.gpus_fixed ? (w.gpus + per - 1) / per * per : per;
        if (billed > filter.max_gpus) continue;
      }
      row.eval = evaluate_offer(m, pc, w, *g.found, o, p, run.spec);
      if (!row.eval.excluded.empty() || !row.eval.fits) {
        set.excluded.push_back(std::move(row));
        continue;
      }
      auto conv = [&](double v) { return to_display(v, p.currency, run, p.where); };
      row.rate_per_hour = conv(row.eval.rate_per_hour);
      row.per_step = conv(row.eval.per_step);
      row.per_million_tokens = conv(row.eval.per_million_tokens);
      if (row.eval.cost) {
        const RunCost& rc = *row.eval.cost;
        row.total = conv(rc.total);
        row.compute = conv(rc.compute);
        row.storage = conv(rc.storage);
        row.egress = conv(rc.egress);
        row.tax = conv(rc.tax);
        row.meets_deadline = rc.meets_deadline;
        if (run.budget) row.meets_budget = *row.total <= *run.budget;
      }
      set.priced.push_back(std::move(row));
    }
  }
  return set;
}

void rank_offers(std::vector<PricedOffer>& offers, bool by_time) {
  std::stable_sort(offers.begin(), offers.end(), [&](const PricedOffer& a, const PricedOffer& b) {
    return by_time ? a.sort_time() < b.sort_time() : a.sort_cost() < b.sort_cost();
  });
  // Pareto front on (cost, time): no other offer is at least as cheap and as fast, and better in one.
  for (auto& a : offers) {
    a.pareto = std::none_of(offers.begin(), offers.end(), [&](const PricedOffer& b) {
      return b.sort_cost() <= a.sort_cost() && b.sort_time() <= a.sort_time() &&
             (b.sort_cost() < a.sort_cost() || b.sort_time() < a.sort_time());
    });
  }
}

void collapse_regions(std::vector<PricedOffer>& offers) {
  std::vector<PricedOffer> kept;
  for (auto& p : offers) {
    const std::string base = p.offer->id.substr(0, p.offer->id.find('@'));
    auto same = std::find_if(kept.begin(), kept.end(), [&](const PricedOffer& k) {
      return k.provider == p.provider && k.offer->id.substr(0, k.offer->id.find('@')) == base && k.offer->id != p.offer->id &&
             k.rate_per_hour == p.rate_per_hour && k.eval.workload.gpus == p.eval.workload.gpus;
    });
    if (same != kept.end() && p.offer->id.find('@') != std::string::npos) {
      ++same->same_price_regions;
      continue;
    }
    kept.push_back(std::move(p));
  }
  offers = std::move(kept);
}

bool prices_stale(const Provider& p, const RunSettings& run) {
  const auto age = prices_age_days(p, run.today);
  return !age || *age > run.stale_after_days;
}

void warn_stale_prices(const std::vector<PricedOffer>& offers, const RunSettings& run) {
  std::vector<const Provider*> seen;
  for (const auto& o : offers) {
    if (std::find(seen.begin(), seen.end(), o.provider) != seen.end() || !prices_stale(*o.provider, run)) continue;
    seen.push_back(o.provider);
    const auto age = prices_age_days(*o.provider, run.today);
    warn(o.provider->id + ": prices " +
         (age ? "dated " + o.provider->prices_as_of + ", " + std::to_string(*age) + " days old (over --stale-after " +
                    std::to_string(run.stale_after_days) + ")"
              : "carry no date (" + o.provider->prices_as_of + ")") +
         "; check them before deciding");
  }
}

bool tax_included(const Provider& p, const RunSettings& run) {
  const RunInputs& b = run.spec.bill;
  return b.tax_basis == TaxBasis::inclusive && !b.input_tax_credit && (b.tax_rate || p.tax_rate);
}

void warn_mixed_tax(const std::vector<PricedOffer>& offers, const RunSettings& run) {
  const RunInputs& b = run.spec.bill;
  if (b.tax_basis == TaxBasis::exclusive || b.input_tax_credit || b.tax_rate) return;
  std::vector<std::string> without;
  bool some_with = false;
  for (const auto& o : offers) {
    if (tax_included(*o.provider, run)) some_with = true;
    else if (std::find(without.begin(), without.end(), o.provider->id) == without.end()) without.push_back(o.provider->id);
  }
  if (!some_with || without.empty()) return;
  std::string names;
  for (const auto& n : without) names += (names.empty() ? "" : ", ") + n;
  warn("totals mix bases: " + names + " state no tax rate, so their totals exclude tax; give --tax RATE or "
       "--tax-basis exclusive to compare on one basis");
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
  if (const auto age = prices_age_days(*p.provider, run.today)) j["prices_age_days"] = *age;
  if (p.offer->spot_low && p.offer->spot_high)
    j["spot_range_per_gpu_hour"] = {{"low", *p.offer->spot_low}, {"high", *p.offer->spot_high},
                                    {"zones", p.offer->spot_zones}, {"currency", p.provider->currency}};
  j["total"] = p.total ? nlohmann::json(*p.total) : nlohmann::json();
  j["meets_deadline"] = p.meets_deadline ? nlohmann::json(*p.meets_deadline) : nlohmann::json();
  j["meets_budget"] = p.meets_budget ? nlohmann::json(*p.meets_budget) : nlohmann::json();
  if (e.cost) {
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
    if (c.spot) {
      const SpotOutcome& s = *c.spot;
      j["spot"] = {{"preemptions_per_hour", s.preemptions_per_hour},
                   {"checkpoint_interval_seconds", s.checkpoint_interval_seconds},
                   {"expected_preemptions", s.expected_preemptions},
                   {"checkpoint_overhead_seconds", s.checkpoint_overhead_seconds},
                   {"lost_work_seconds", s.lost_work_seconds},
                   {"p_miss_deadline", s.p_miss_deadline ? nlohmann::json(*s.p_miss_deadline) : nlohmann::json()},
                   {"method", "closed form: Poisson preemptions, Young interval"}};
    }
  } else {
    j["wall_seconds"] = nullptr;
  }
  return j;
}

io::Table offers_table(const std::vector<PricedOffer>& offers, const RunSettings& run, const std::string& title) {
  io::Table t;
  t.title = title;
  const bool totals = run.has_work();
  t.columns = {"provider", "offer", "gpu", "gpus", "tok/s", "mfu", "per_hour", "per_1M_tok"};
  if (totals) {
    t.columns.push_back("wall");
    t.columns.push_back("total " + run.currency);
  } else {
    t.columns.back() += " " + run.currency;
  }
  t.columns.push_back("pareto");
  for (const auto& p : offers) {
    std::vector<std::string> row = {p.provider->id + (prices_stale(*p.provider, run) ? " (stale)" : ""),
                                    p.offer->id + (p.same_price_regions ? " (+" + std::to_string(p.same_price_regions) + " regions)" : ""),
                                    p.offer->gpu,
                                    std::to_string(p.eval.workload.gpus),
                                    num(p.eval.time.tokens_per_second, 0),
                                    is_training(p.eval.workload.method) ? num(100 * p.eval.time.mfu, 0) + "%" : "-",
                                    money(p.rate_per_hour),
                                    money(p.per_million_tokens)};
    if (totals) {
      row.push_back(p.eval.cost ? duration(p.eval.cost->wall_seconds) : "-");
      std::string total = p.total ? money(*p.total) : "-";
      if (p.meets_budget && !*p.meets_budget) total += " (over budget)";
      if (p.meets_deadline && !*p.meets_deadline) total += " (late)";
      row.push_back(total);
    }
    row.push_back(p.pareto ? "*" : "");
    t.rows.push_back(row);
  }
  t.align.assign(t.columns.size(), io::Align::right);
  t.align[0] = t.align[1] = t.align[2] = io::Align::left;
  return t;
}

io::Table excluded_table(const std::vector<PricedOffer>& offers) {
  io::Table t;
  t.title = "Excluded offers";
  t.columns = {"provider", "offer", "gpu", "why"};
  t.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::left};
  for (const auto& p : offers) t.rows.push_back({p.provider->id, p.offer->id, p.offer->gpu, p.eval.excluded});
  return t;
}

std::vector<std::string> unpriced_notes(const std::vector<PricedOffer>& offers) {
  std::vector<std::string> storage, egress, no_rate, no_network, notes;
  for (const auto& p : offers) {
    if (p.eval.workload.gpus > std::max(1, p.offer->gpus) && !p.offer->network_gbps &&
        std::find(no_network.begin(), no_network.end(), p.offer->key()) == no_network.end())
      no_network.push_back(p.offer->key());
    if (!p.eval.cost) continue;
    if (p.eval.cost->spot && p.eval.cost->spot->preemptions_per_hour == 0 &&
        std::find(no_rate.begin(), no_rate.end(), p.provider->id) == no_rate.end())
      no_rate.push_back(p.provider->id);
    if (!p.eval.cost->storage_priced && std::find(storage.begin(), storage.end(), p.provider->id) == storage.end())
      storage.push_back(p.provider->id);
    if (!p.eval.cost->egress_priced && std::find(egress.begin(), egress.end(), p.provider->id) == egress.end())
      egress.push_back(p.provider->id);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!storage.empty()) notes.push_back("storage is not priced on these sheets (left out of their totals): " + join(storage));
  if (!no_network.empty())
    notes.push_back("no network bandwidth on the sheet for multi-instance offers, 10 GbE assumed (slow): " + join(no_network));
  if (!no_rate.empty())
    notes.push_back("no preemption rate on these sheets: spot is priced as if never preempted (give --preemptions-per-hour): " +
                    join(no_rate));
  if (!egress.empty()) notes.push_back("egress is not priced on these sheets (left out of their totals): " + join(egress));
  return notes;
}

}  // namespace gpuplan::cli
