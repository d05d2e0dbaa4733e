#include "gpuplan/offer_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "gpuplan/error.hpp"
#include "gpuplan/offer_rows.hpp"

namespace gpuplan {

namespace {

bool wanted(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

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

namespace {

// Every offer of `c` that `filter` keeps, evaluated and converted, in catalog order, passed to
// `keep(row, priced)`. One loop for the full rows and the compact ones, so both hold the same offers.
template <class Keep>
void for_each_priced(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                     const OfferFilter& filter, Keep&& keep) {
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
      const bool priced = row.eval.priced();
      if (priced) convert_for_display(row, run);
      keep(std::move(row), priced);
    }
  }
}

std::size_t offer_count(const Catalog& c) {
  std::size_t n = 0;
  for (const Provider& p : c.providers) n += p.offers.size();
  return n;
}

}  // namespace

OfferSet evaluate_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                         const OfferFilter& filter) {
  OfferSet set;
  set.priced.reserve(offer_count(c));  // an upper bound: pages never written are never resident
  for_each_priced(c, m, pc, w, run, filter,
                  [&](PricedOffer&& row, bool priced) { (priced ? set.priced : set.excluded).push_back(std::move(row)); });
  return set;
}

OfferRow row_of(const PricedOffer& p) {
  OfferRow r;
  r.provider = p.provider;
  r.offer = p.offer;
  r.gpu = p.gpu;
  r.cost = p.sort_cost();
  r.time = p.sort_time();
  r.rate_per_hour = p.rate_per_hour;
  r.gpus = p.eval.workload.gpus;
  r.same_price_regions = p.same_price_regions;
  r.pareto = p.pareto;
  r.meets_limits = p.meets_limits();
  return r;
}

OfferRows search_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                        const OfferFilter& filter) {
  OfferRows rows;
  rows.priced.reserve(offer_count(c));  // 64 bytes an offer; untouched pages stay unmapped
  for_each_priced(c, m, pc, w, run, filter,
                  [&](PricedOffer&& row, bool priced) { (priced ? rows.priced : rows.excluded).push_back(row_of(row)); });
  return rows;
}

PricedOffer price_row(const OfferRow& r, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run) {
  PricedOffer p;
  p.provider = r.provider;
  p.offer = r.offer;
  p.gpu = r.gpu;
  p.eval = evaluate_offer(m, pc, w, *r.gpu, *r.offer, *r.provider, run.spec);
  if (p.eval.priced()) convert_for_display(p, run);
  p.pareto = r.pareto;
  p.same_price_regions = r.same_price_regions;
  return p;
}

namespace {

// The coordinates the algorithms below read, for either kind of row.
double cost_of(const PricedOffer& p) { return p.sort_cost(); }
double cost_of(const OfferRow& r) { return r.cost; }
double time_of(const PricedOffer& p) { return p.sort_time(); }
double time_of(const OfferRow& r) { return r.time; }
int gpus_of(const PricedOffer& p) { return p.eval.workload.gpus; }
int gpus_of(const OfferRow& r) { return r.gpus; }

// Moves rows[order[k]] to position k for every k, in place (cycle by cycle), so a sort of
// 790-byte rows costs one move per row and no second copy of the vector.
template <class Row>
void permute(std::vector<Row>& rows, std::vector<std::size_t>& order) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (order[i] == i) continue;
    Row held = std::move(rows[i]);
    std::size_t j = i;
    while (order[j] != i) {
      const std::size_t from = order[j];
      rows[j] = std::move(rows[from]);
      order[j] = j;
      j = from;
    }
    rows[j] = std::move(held);
    order[j] = j;
  }
}

template <class Row>
void rank(std::vector<Row>& rows, bool by_time) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return by_time ? time_of(rows[a]) < time_of(rows[b]) : cost_of(rows[a]) < cost_of(rows[b]);
  });
  permute(rows, order);
  mark_pareto_front(rows);
}

template <class Row>
void mark_front(std::vector<Row>& rows) {
  // A row is on the front when no other is at least as cheap and as fast and better in one.
  // A comparison with NaN is false, so a NaN coordinate neither dominates nor is dominated.
  std::vector<std::size_t> order;
  order.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].pareto = true;
    if (!std::isnan(cost_of(rows[i])) && !std::isnan(time_of(rows[i]))) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double ca = cost_of(rows[a]), cb = cost_of(rows[b]);
    return ca < cb || (ca == cb && time_of(rows[a]) < time_of(rows[b]));
  });
  // Sweep by cost: within one cost the fastest dominates the slower ones; across costs, the
  // fastest strictly cheaper row dominates every row it is at least as fast as.
  bool cheaper_seen = false;
  double cheaper_fastest = 0;
  for (std::size_t g = 0; g < order.size();) {
    const double cost = cost_of(rows[order[g]]);
    const double fastest = time_of(rows[order[g]]);
    std::size_t e = g;
    for (; e < order.size() && cost_of(rows[order[e]]) == cost; ++e) {
      const double t = time_of(rows[order[e]]);
      rows[order[e]].pareto = !(cheaper_seen && cheaper_fastest <= t) && !(fastest < t);
    }
    cheaper_fastest = cheaper_seen ? std::min(cheaper_fastest, fastest) : fastest;
    cheaper_seen = true;
    g = e;
  }
}

}  // namespace

void rank_offers(std::vector<PricedOffer>& offers, bool by_time) { rank(offers, by_time); }
void rank_offers(std::vector<OfferRow>& rows, bool by_time) { rank(rows, by_time); }
void mark_pareto_front(std::vector<PricedOffer>& offers) { mark_front(offers); }
void mark_pareto_front(std::vector<OfferRow>& rows) { mark_front(rows); }

namespace {

// Rows that may fold into one another: one provider, one instance type, one hourly rate, one
// GPU count. The rate is compared as `==` does (so -0 and +0 are one key; NaN is never a key).
struct RegionKey {
  const Provider* provider;
  std::string_view base;
  double rate;
  int gpus;
  bool operator==(const RegionKey& o) const {
    return provider == o.provider && base == o.base && rate == o.rate && gpus == o.gpus;
  }
};

struct RegionKeyHash {
  std::size_t operator()(const RegionKey& k) const {
    std::size_t h = std::hash<std::string_view>()(k.base);
    const double rate = k.rate == 0 ? 0.0 : k.rate;
    h ^= std::hash<double>()(rate) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= std::hash<const void*>()(k.provider) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h ^ (static_cast<std::size_t>(k.gpus) * 0x9e3779b97f4a7c15ULL);
  }
};

// Kept rows of one key, by position: the first, and the first whose id differs from the
// first's (a row folds into the earliest kept row of its key with another id).
struct RegionGroup {
  std::size_t first = 0;
  std::size_t other = SIZE_MAX;
};

std::string_view base_of(const std::string& id) { return std::string_view(id).substr(0, id.find('@')); }

template <class Row>
void collapse(std::vector<Row>& rows) {
  std::unordered_map<RegionKey, RegionGroup, RegionKeyHash> groups;
  groups.reserve(rows.size());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row& p = rows[i];
    const std::string& id = p.offer->id;
    const RegionKey key{p.provider, base_of(id), p.rate_per_hour, gpus_of(p)};
    const bool keyed = !std::isnan(p.rate_per_hour);
    auto it = keyed ? groups.find(key) : groups.end();
    if (it != groups.end() && id.find('@') != std::string::npos) {
      const RegionGroup& g = it->second;
      const std::size_t into = rows[g.first].offer->id != id ? g.first : g.other;
      if (into != SIZE_MAX) {
        ++rows[into].same_price_regions;
        continue;
      }
    }
    if (kept != i) rows[kept] = std::move(p);
    if (keyed) {
      if (it == groups.end()) groups.emplace(key, RegionGroup{kept});
      else if (it->second.other == SIZE_MAX && rows[it->second.first].offer->id != id) it->second.other = kept;
    }
    ++kept;
  }
  rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(kept), rows.end());
}

}  // namespace

void collapse_regions(std::vector<PricedOffer>& offers) { collapse(offers); }
void collapse_regions(std::vector<OfferRow>& rows) { collapse(rows); }

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

void stale_warnings(const std::vector<const Provider*>& sheets, const RunSettings& run, std::vector<PriceWarning>& out) {
  for (const Provider* p : sheets) {
    if (!prices_stale(*p, run)) continue;
    const auto age = prices_age_days(*p, run.today);
    PriceWarning w;
    w.kind = age ? PriceWarningKind::stale : PriceWarningKind::undated;
    w.provider = p->id;
    w.prices_as_of = p->prices_as_of;
    w.age_days = age.value_or(0);
    w.stale_after_days = run.stale_after_days;
    out.push_back(std::move(w));
  }
}

void mixed_tax_warning(const std::vector<const Provider*>& sheets, const RunSettings& run, std::vector<PriceWarning>& out) {
  const RunInputs& b = run.spec.bill;
  if (b.tax_basis == TaxBasis::exclusive || b.input_tax_credit || b.tax_rate) return;
  PriceWarning w;
  w.kind = PriceWarningKind::mixed_tax;
  bool some_with = false;
  for (const Provider* p : sheets) {
    if (tax_included(*p, run)) some_with = true;
    else w.untaxed.push_back(p->id);
  }
  if (some_with && !w.untaxed.empty()) out.push_back(std::move(w));
}

}  // namespace

std::vector<PriceWarning> price_warnings(const std::vector<const Provider*>& sheets, const RunSettings& run) {
  std::vector<const Provider*> unique;
  for (const Provider* p : sheets)
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
  std::vector<PriceWarning> out;
  stale_warnings(unique, run, out);
  mixed_tax_warning(unique, run, out);
  return out;
}

std::vector<PriceWarning> price_warnings(const std::vector<PricedOffer>& offers, const RunSettings& run) {
  std::vector<const Provider*> sheets;
  sheets.reserve(offers.size());
  for (const auto& o : offers) sheets.push_back(o.provider);
  return price_warnings(sheets, run);
}

}  // namespace gpuplan
