#include "gpuplan/offer_search.hpp"

#include <algorithm>

#include "gpuplan/error.hpp"

namespace gpuplan {

namespace {

bool wanted(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

std::string base_id(const Offer& o) { return o.id.substr(0, o.id.find('@')); }

}  // namespace

double to_display(double amount, const std::string& from, const RunSettings& s, const SourceLocation& where) {
  auto v = s.fx.convert(amount, from, s.currency);
  if (!v)
    throw InputError(where, "currency",
                     "no exchange rate from " + from + " to " + s.currency + " (add --fx " + from + ":" + s.currency + "=RATE)");
  return *v;
}

bool offer_matches(const OfferFilter& filter, const Provider& p, const Offer& o, const Workload& w, const RunSpec& run) {
  if (!wanted(filter.providers, p.id) || !wanted(filter.gpus, o.gpu)) return false;
  if (!filter.offers.empty() && !wanted(filter.offers, o.key())) return false;
  if (!filter.regions.empty() &&
      std::none_of(filter.regions.begin(), filter.regions.end(), [&](const std::string& r) { return o.in_region(r); }))
    return false;
  if (!filter.countries.empty() &&
      std::none_of(filter.countries.begin(), filter.countries.end(), [&](const std::string& k) { return o.in_country(k); }))
    return false;
  if (filter.max_gpus > 0) {
    const int per = std::max(1, o.gpus);
    const int billed = (gpus_on_offer(w, o, run) + per - 1) / per * per;
    if (billed > filter.max_gpus) return false;
  }
  return true;
}

void convert_for_display(PricedOffer& row, const RunSettings& run) {
  const Provider& p = *row.provider;
  // One factor per sheet, applied by multiplication: plan converts the same way, so both
  // agree to the last bit.
  const double rate = to_display(1.0, p.currency, run, p.where);
  auto conv = [&](double v) { return v * rate; };
  row.rate_per_hour = conv(row.eval.rate_per_hour);
  row.per_step = conv(row.eval.per_step);
  row.per_million_tokens = conv(row.eval.per_million_tokens);
  if (!row.eval.cost) return;
  const RunCost& rc = *row.eval.cost;
  row.total = conv(rc.total);
  row.compute = conv(rc.compute);
  row.storage = conv(rc.storage);
  row.egress = conv(rc.egress);
  row.tax = conv(rc.tax);
  row.meets_deadline = rc.meets_deadline;
  if (run.budget) row.meets_budget = *row.total <= *run.budget;
}

OfferSet evaluate_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                         const OfferFilter& filter) {
  OfferSet set;
  for (const Provider& p : c.providers) {
    for (const Offer& o : p.offers) {
      if (!offer_matches(filter, p, o, w, run.spec)) continue;
      const auto g = c.find_gpu(o.gpu);
      if (!g.found) continue;  // the loader guarantees offers name known GPUs
      PricedOffer row;
      row.provider = &p;
      row.offer = &o;
      row.gpu = g.found;
      row.eval = evaluate_offer(m, pc, w, *g.found, o, p, run.spec);
      if (!row.eval.priced()) {
        set.excluded.push_back(std::move(row));
        continue;
      }
      convert_for_display(row, run);
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
    const std::string base = base_id(*p.offer);
    auto same = std::find_if(kept.begin(), kept.end(), [&](const PricedOffer& k) {
      return k.provider == p.provider && base_id(*k.offer) == base && k.offer->id != p.offer->id &&
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

const PricedOffer* best_offer(const std::vector<PricedOffer>& ranked) {
  if (ranked.empty()) return nullptr;
  const auto it = std::find_if(ranked.begin(), ranked.end(), [](const PricedOffer& p) { return p.meets_limits(); });
  return it != ranked.end() ? &*it : &ranked.front();
}

bool prices_stale(const Provider& p, const RunSettings& run) {
  const auto age = prices_age_days(p, run.today);
  return !age || *age > run.stale_after_days;
}

bool tax_included(const Provider& p, const RunSettings& run) {
  const RunInputs& b = run.spec.bill;
  return b.tax_basis == TaxBasis::inclusive && !b.input_tax_credit && (b.tax_rate || p.tax_rate);
}

namespace {

void stale_warnings(const std::vector<const Provider*>& sheets, const RunSettings& run, std::vector<std::string>& out) {
  for (const Provider* p : sheets) {
    if (!prices_stale(*p, run)) continue;
    const auto age = prices_age_days(*p, run.today);
    out.push_back(p->id + ": prices " +
                  (age ? "dated " + p->prices_as_of + ", " + std::to_string(*age) + " days old (over --stale-after " +
                             std::to_string(run.stale_after_days) + ")"
                       : "carry no date (" + p->prices_as_of + ")") +
                  "; check them before deciding");
  }
}

void mixed_tax_warning(const std::vector<const Provider*>& sheets, const RunSettings& run, std::vector<std::string>& out) {
  const RunInputs& b = run.spec.bill;
  if (b.tax_basis == TaxBasis::exclusive || b.input_tax_credit || b.tax_rate) return;
  std::string names;
  bool some_with = false;
  for (const Provider* p : sheets) {
    if (tax_included(*p, run)) some_with = true;
    else names += (names.empty() ? "" : ", ") + p->id;
  }
  if (!some_with || names.empty()) return;
  out.push_back("totals mix bases: " + names + " state no tax rate, so their totals exclude tax; give --tax RATE or "
                "--tax-basis exclusive to compare on one basis");
}

}  // namespace

std::vector<std::string> price_warnings(const std::vector<const Provider*>& sheets, const RunSettings& run) {
  std::vector<const Provider*> unique;
  for (const Provider* p : sheets)
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
  std::vector<std::string> out;
  stale_warnings(unique, run, out);
  mixed_tax_warning(unique, run, out);
  return out;
}

std::vector<std::string> price_warnings(const std::vector<PricedOffer>& offers, const RunSettings& run) {
  std::vector<const Provider*> sheets;
  sheets.reserve(offers.size());
  for (const auto& o : offers) sheets.push_back(o.provider);
  return price_warnings(sheets, run);
}

}  // namespace gpuplan
