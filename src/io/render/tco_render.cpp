#include "io/render/tco_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gpuplan/tco_defaults.hpp"
#include "gpuplan/plural.hpp"

namespace gpuplan::io {

namespace {

using nlohmann::json;
constexpr double kMonth = tco_defaults::kHoursPerMonth;

std::string pct(double share, int decimals = 0) { return num(share * 100, decimals) + "%"; }
std::string count(int n) { return std::to_string(n); }
std::string plural(int n) { return n > 1 ? "s" : ""; }

// The offer that carried most of an option's rent (the first listed when nothing was rented).
const RentOffer& main_offer(const RentTerms& r, const MonthlyCost& m) {
  return r.offers[m.rent_offer >= 0 ? static_cast<std::size_t>(m.rent_offer) : 0];
}
std::string offer_label(const RentTerms& r, const MonthlyCost& m) {
  return main_offer(r, m).offer->key() + " " + to_string(r.pricing);
}

// The words shared by several reasons.
struct Words {
  const TcoInputs& in;
  const TcoAnalysis& a;
  const TcoContext& c;
  MoneyStyle style;
  int n = in.fleet_gpus, months = in.horizon_months;
  std::string rent_label = offer_label(in.rent, a.rent);
  std::string choice_burst = offer_label(in.rent, a.choice);
  std::string own = count(n) + " x " + c.gpu;
  std::string demand = num(c.hours_per_month, 0) + " GPU-h/month (" + pct(c.hours_per_month / (n * kMonth)) + " of " + count(n) +
                       " GPU" + plural(n) + ")";
  std::string m(double v) const { return money_text(v, c.currency, 2, style); }
  std::string amount(double v, int decimals = 2) const { return money_amount(v, c.currency, decimals, style); }  // a column names the currency
};

// With a job log: the fleets were replayed job by job, so no "if the work can be spread".
std::string jobs_verdict_reason(const Words& w) {
  const Decision& d = w.a.decision;
  const MonthlyCost &rent = w.a.rent, &buy = w.a.buy, &choice = w.a.choice;
  const std::string replayed = "replaying the log's " + count(w.c.jobs) + " jobs (each on all its GPUs at once; one that does not fit rents at once)";
  const std::string own_k = count(d.owned_gpus) + " x " + w.c.gpu;
  const std::string own_all = "owning " + count(buy.owned_gpus) + " (" + w.m(buy.total) + ")";
  switch (d.verdict) {
    case Verdict::rent:
      return replayed + ": renting on " + w.rent_label + " costs " + w.m(rent.total) + "/month, less than any owned fleet; " + own_all;
    case Verdict::buy:
      return replayed + ": owning " + own_k + " runs every job for " + w.m(choice.total) + "/month against " + w.m(rent.total) +
             " renting on " + w.rent_label;
    case Verdict::hybrid:
      return replayed + ": owning " + own_k + " and renting the jobs that do not fit on " + w.choice_burst + " costs " +
             w.m(choice.total) + "/month, against " + w.m(rent.total) + " renting everything and " + own_all;
  }
  return "";
}

std::string verdict_reason(const Words& w) {
  if (w.c.jobs > 0) return jobs_verdict_reason(w);
  const Decision& d = w.a.decision;
  const MonthlyCost &rent = w.a.rent, &buy = w.a.buy, &choice = w.a.choice;
  const std::string k = count(d.owned_gpus), n = count(w.n), months = count(w.months);
  switch (d.verdict) {
    case Verdict::rent:
      return "renting on " + w.rent_label + " costs " + w.m(rent.total) + "/month against " + w.m(buy.total) + "/month owning " +
             w.own + ", at " + w.demand;
    case Verdict::buy:
      if (d.owned_gpus < w.n)
        return "owning " + k + " x " + w.c.gpu + " (of the " + n + ") serves all " + num(w.c.hours_per_month, 0) +
               " GPU-h/month at " + pct(choice.owned_gpu_hours / (d.owned_gpus * kMonth)) +
               " utilisation, if the work can be spread over them: " + w.m(choice.total) + "/month against " + w.m(rent.total) +
               " renting on " + w.rent_label + " and " + w.m(buy.total) + " owning all " + n + ": " +
               w.m((rent.total - choice.total) * w.months) + " saved over " + months + " months";
      return "owning " + w.own + " costs " + w.m(buy.total) + "/month against " + w.m(rent.total) + "/month renting on " +
             w.rent_label + ", at " + w.demand + ": " + w.m((rent.total - buy.total) * w.months) + " saved over " + months + " months";
    case Verdict::hybrid:
      if (d.owned_gpus < w.n)
        return "owning " + k + " of " + n + " x " + w.c.gpu + " and renting the rest on " + w.choice_burst + " costs " +
               w.m(choice.total) + "/month, against " + w.m(rent.total) + " renting everything and " + w.m(buy.total) +
               " owning all " + n + ", at " + w.demand;
      return "owning " + w.own + " and renting the overflow on " + w.choice_burst + " costs " + w.m(choice.total) + "/month against " +
             w.m(rent.total) + " renting everything, at " + w.demand + " (more than " + count_of(w.n, "GPU") + " can serve)";
  }
  return "";
}

std::string break_even_reason(const Words& w) {
  if (w.c.jobs > 0)
    return "break-even, sensitivity and reserved terms assume GPU-hours can be spread over any GPUs: they are not shown for a job log, "
           "whose jobs are replayed whole (--gpu-hours-per-month gives them)";
  const auto& be = w.a.break_even_gpu_hours;
  if (be)
    return "break-even at " + num(*be, 1) + " GPU-h/month (" + pct(*be / (w.n * kMonth), 1) + " utilisation of " + count(w.n) +
           " owned GPU" + plural(w.n) + ", steady demand); expected demand is " + num(w.c.hours_per_month, 1);
  if (w.a.buy.total - w.a.rent.total > 0 || w.in.rent.pricing == Pricing::on_demand || w.in.rent.pricing == Pricing::spot)
    return "no break-even: renting stays cheaper than owning " + w.own + " even at 100% utilisation";
  return "no break-even: owning " + w.own + " is cheaper than the commitment at any utilisation";
}

std::string payback_reason(const Words& w) {
  const std::string k = count(w.a.payback_owned);
  if (!w.a.payback_months) return "owning " + k + " never pays back: it saves nothing per month against renting";
  const double p = *w.a.payback_months;
  return "payback in " + num(p, 1) + " months for " + k + " owned (price" + (w.in.owned.financing_per_year > 0 ? " plus interest" : "") +
         " over the monthly saving; resale not counted), " + (p <= w.months ? "within" : "beyond") + " the " + count(w.months) +
         "-month horizon";
}

std::string uncertainty_reason(const Words& w) {
  const Decision& d = w.a.decision;
  const double u = w.in.uncertainty;
  if (!d.rule_applied) {
    if (u > 0) return "demand uncertain by ±" + pct(u) + ", under the 30% threshold of the rule (avoid buying when utilisation cannot be predicted within about 30-50%): expected cost decides";
    return "no --uncertainty given: the rule (avoid buying when utilisation cannot be predicted within about 30-50%) is not applied";
  }
  std::string r = "demand is uncertain by ±" + pct(u) +
                  " (the rule: avoid buying when utilisation cannot be predicted within about 30-50%): at the low end (" +
                  num(w.c.hours_per_month * (1 - u), 0) + " GPU-h/month) owning " + count(d.owned_at_low_end) + " pays";
  if (d.owned_gpus != d.cheapest_owned)
    r += ", so the verdict owns " + count(d.owned_gpus) + " instead of the " + count(d.cheapest_owned) +
         " that expected cost alone picks (" + w.m(d.monthly(d.cheapest_owned)) + "/month)";
  return r;
}

void alternative_reasons(const Words& w, std::vector<std::string>& out) {
  const double chosen = w.a.choice.total;
  if (w.c.profile_periods > 0) {
    double low = 1e300;
    for (const auto& p : w.in.demand.periods) low = std::min(low, p.gpu_hours / p.length_hours);
    out.push_back("the profile's " + count(w.c.profile_periods) + " " + w.c.profile_period + "s average " +
                  num(w.c.hours_per_month, 0) + " GPU-h/month, from " + num(low, 1) + " to " + num(w.in.demand.peak_gpus(), 1) +
                  " GPUs busy");
  }
  if (w.a.spot && w.a.spot->total < chosen)
    out.push_back("renting on " + w.a.spot_offer->key() + " spot would cost " + w.m(w.a.spot->total) +
                  "/month, less than the verdict's " + w.m(chosen) + ", if the work is interruptible");
  for (const auto& c : w.a.commitments)
    if (c.check.pays)
      out.push_back(std::string(to_string(c.check.term)) + " on " + c.offer->key() + " costs " + w.m(c.check.committed_per_month) +
                    "/month committed, against " + w.m(c.check.on_demand_per_month) + " on-demand: it pays above " +
                    pct(c.check.break_even_utilisation) + " utilisation" +
                    (c.check.committed_per_month < chosen ? ", and beats the verdict's " + w.m(chosen) : ""));
}

json cost_json(const MonthlyCost& m, const char* option) {
  // What an owned GPU-hour costs in this option (owned_hour_cost: the figure --owned prices
  // estimate, compare and plan's owned offer at); null when it owns nothing.
  const auto hour = owned_hour_cost(m);
  return {{"owned_gpus", m.owned_gpus}, {"capital", m.capital}, {"power", m.power}, {"maintenance", m.maintenance},
          {"failures", m.failures}, {"colo", m.colo}, {"ops", m.ops}, {"rent", m.rent}, {"total", m.total},
          {"owned_gpu_hours", m.owned_gpu_hours}, {"rented_gpu_hours", m.rented_gpu_hours}, {"option", option},
          {"owned_cost_per_gpu_hour", hour ? json(hour->full) : json(nullptr)},
          {"owned_marginal_cost_per_gpu_hour", hour ? json(hour->marginal) : json(nullptr)}};
}

json offer_json(const RentOffer& o, Pricing p) {
  return {{"provider", o.offer->provider}, {"offer", o.offer->id}, {"gpu", o.offer->gpu}, {"pricing", to_string(p)},
          {"per_gpu_hour", o.offer->price(p).value_or(0) * o.currency_rate}};
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json sensitivity_json(const TcoSensitivityRow& row) {
  const Sensitivity& x = row.s;
  auto flip = [](const std::optional<double>& m, const std::optional<Verdict>& v) -> json {
    if (!m || !v) return nullptr;
    return {{"multiplier", *m}, {"verdict", to_string(*v)}};
  };
  auto end = [](const Decision& d, double diff, int compared) -> json {
    return {{"verdict", to_string(d.verdict)}, {"owned_gpus", d.owned_gpus}, {"buy_minus_rent_monthly", diff},
            {"compared_owned_gpus", compared}};
  };
  return {{"factor", to_string(x.factor)}, {"swing", x.swing},
          {"low", end(x.low, x.low_buy_minus_rent, x.low_compared_owned)},
          {"high", end(x.high, x.high_buy_minus_rent, x.high_compared_owned)},
          {"flip_down", flip(x.flip_down, row.flip_down_verdict)}, {"flip_up", flip(x.flip_up, row.flip_up_verdict)}};
}

json assumptions_json(const OwnedTerms& o, const std::vector<DefaultUsed>& defaults) {
  return {{"gpu_price", o.gpu_price}, {"rest_of_machine_per_build", o.rest_of_machine_per_build},
          {"gpus_per_build", o.gpus_per_build}, {"tdp_watts", o.tdp_watts}, {"load_factor", o.load_factor},
          {"idle_power_share", o.idle_power_share}, {"pue", o.pue}, {"power_price_per_kwh", o.power_price_per_kwh},
          {"maintenance_per_year", o.maintenance_per_year}, {"failures_per_gpu_year", o.failures_per_gpu_year},
          {"colo_per_kw_month", o.colo_per_kw_month}, {"ops_hours_per_month", o.ops_hours_per_month},
          {"engineer_rate_per_hour", o.engineer_rate_per_hour}, {"resale_kept_per_year", o.resale_kept_per_year},
          {"financing_per_year", o.financing_per_year}, {"defaults_used", default_texts(defaults, kJsonMoney)}};
}

json options_json(const TcoAnalysis& a) {
  json out = json::array({cost_json(a.rent, "rent"), cost_json(a.buy, "buy")});
  if (a.partial) out.push_back(cost_json(*a.partial, a.partial_rents ? "hybrid" : "buy_fewer"));
  return out;
}

json money_json(const TcoAnalysis& a) {
  json j = {{"verdict", a.choice.total}, {"rent", a.rent.total}, {"buy", a.buy.total},
            {"hybrid", a.partial_rents ? json(a.partial->total) : json(nullptr)},
            {"spot", a.spot ? json(a.spot->total) : json(nullptr)}, {"reserved_1y", nullptr}, {"reserved_3y", nullptr}};
  for (const auto& c : a.commitments) j[c.check.term == Pricing::reserved_1y ? "reserved_1y" : "reserved_3y"] = c.check.committed_per_month;
  return j;
}

json reserved_json(const TcoAnalysis& a) {
  json out = json::array();
  for (const auto& c : a.commitments)
    out.push_back({{"term", to_string(c.check.term)}, {"provider", c.offer->provider}, {"offer", c.offer->id},
                   {"committed_monthly", c.check.committed_per_month}, {"on_demand_monthly", c.check.on_demand_per_month},
                   {"break_even_utilization", c.check.break_even_utilisation}, {"pays", c.check.pays},
                   {"term_months", c.check.term_months}});
  return out;
}

json cumulative_json(const TcoInputs& in, const TcoAnalysis& a) {
  json j = {{"months", json::array()}, {"rent", a.cumulative_rent}, {"buy", a.cumulative_buy},
            {"partial", a.partial_owned ? json(a.cumulative_partial) : json(nullptr)},
            {"partial_owned_gpus", a.partial_owned ? json(*a.partial_owned) : json(nullptr)}};
  for (int t = 0; t <= in.horizon_months; ++t) j["months"].push_back(t);
  return j;
}

// The value a sensitivity multiplier stands for, in words: "212.3 GPU-h/month".
std::string factor_value(Factor f, double multiplier, const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, MoneyStyle style) {
  switch (f) {
    case Factor::demand: return num(c.hours_per_month * multiplier, 1) + " GPU-h/month";
    case Factor::power_price: return money_text(in.owned.power_price_per_kwh * multiplier, c.currency, 3, style) + "/kWh";
    case Factor::resale:
      return pct(std::pow(in.owned.resale_kept_per_year, in.horizon_months / 12.0) * multiplier, 1) + " of the price back";
    case Factor::cloud_price: {
      const RentOffer& o = main_offer(in.rent, a.rent);
      return money_text(o.offer->price(in.rent.pricing).value_or(0) * o.currency_rate * multiplier, c.currency, 3, style) + "/GPU-h";
    }
  }
  return "";
}

const char* factor_label(Factor f) {
  switch (f) {
    case Factor::demand: return "demand";
    case Factor::power_price: return "power price";
    case Factor::resale: return "resale value";
    case Factor::cloud_price: return "cloud price";
  }
  return "";
}

Table verdict_table(const Words& w, const std::vector<std::string>& reasons) {
  const Decision& d = w.a.decision;
  const std::string k = count(d.owned_gpus);
  Table t;
  t.title = std::string("Verdict: ") + to_string(d.verdict) +
            (d.verdict == Verdict::rent  ? " on " + w.rent_label
             : d.verdict == Verdict::buy ? ": own " + k + " x " + w.c.gpu + (d.owned_gpus < w.n ? " of " + count(w.n) : "")
                                         : ": own " + (d.owned_gpus < w.n ? k + " of " : std::string()) + w.own + ", burst to " +
                                               w.choice_burst) +
            " (" + count(w.months) + "-month horizon, " + w.c.currency + ")";
  t.columns = {"why"};
  for (const auto& x : reasons) t.rows.push_back({x});
  return t;
}

Table monthly_table(const Words& w) {
  const TcoAnalysis& a = w.a;
  Table t;
  t.title = "Monthly cost per option (expected, " + w.c.currency + ")";
  t.columns = {"option", "owned", "capital", "power", "upkeep", "colo+ops", "rented", "per month", "over " + count(w.months) + " mo"};
  t.align.assign(t.columns.size(), Align::right);
  t.align[0] = Align::left;
  t.droppable = {1, 5};  // the option's name says what it owns; colo+ops is often zero
  t.cuttable = {0};      // long offer ids in option names; JSON and --wide keep them
  auto row = [&](const std::string& name, const MonthlyCost& m) {
    t.rows.push_back({name, count(m.owned_gpus), w.amount(m.capital), w.amount(m.power), w.amount(m.maintenance + m.failures),
                      w.amount(m.colo + m.ops), w.amount(m.rent), w.amount(m.total), w.amount(m.total * w.months)});
  };
  row("rent: " + w.rent_label, a.rent);
  row("buy: " + w.own, a.buy);
  if (a.partial) {
    const std::string k = count(*a.partial_owned);
    row(a.partial_rents ? "hybrid: own " + k + ", rent the rest on " + offer_label(w.in.rent, *a.partial) : "buy: own " + k + " of " + count(w.n),
        *a.partial);
  }
  if (a.spot) row("rent: " + a.spot_offer->key() + " spot", *a.spot);
  for (const auto& c : a.commitments) {
    MonthlyCost m;
    m.rent = m.total = c.check.committed_per_month;
    row("rent: " + c.offer->key() + " " + to_string(c.check.term), m);
  }
  return t;
}

Table curve_table(const Words& w) {
  const Decision& d = w.a.decision;
  Table t;
  t.title = "Hybrid: expected monthly cost by owned GPUs (the rest rented on the cheapest " + w.c.rented_gpu + " " +
            to_string(w.in.rent.pricing) + " shape)";
  t.columns = {"owned", "owned use", "rented GPU-h", "per month", ""};
  t.align = {Align::right, Align::right, Align::right, Align::right, Align::left};
  double top = 0;
  for (const auto& p : d.curve) top = std::max(top, p.monthly);
  for (const TcoCurveRow& r : w.a.curve) {
    const CurvePoint& p = r.point;
    const std::string mark = p.owned_gpus == d.owned_gpus ? " <- verdict" : p.owned_gpus == d.cheapest_owned ? " <- cheapest" : "";
    t.rows.push_back({count(p.owned_gpus), p.owned_gpus ? pct(r.owned_use) : "-", num(r.cost.rented_gpu_hours, 0),
                      p.feasible ? w.amount(p.monthly) : "infeasible", bar(top > 0 ? p.monthly / top : 0, 24) + mark});
  }
  return t;
}

Table reserved_table(const Words& w) {
  Table t;
  t.title = "Reserved vs on-demand (committing " + count_of(w.n, "GPU") + ", " + w.c.currency + "/month)";
  t.columns = {"term", "offer", "committed", "on-demand at demand", "pays above", "verdict"};
  t.align = {Align::left, Align::left, Align::right, Align::right, Align::right, Align::left};
  for (const auto& c : w.a.commitments)
    t.rows.push_back({to_string(c.check.term), c.offer->key(), w.amount(c.check.committed_per_month), w.amount(c.check.on_demand_per_month),
                      pct(c.check.break_even_utilisation, 1),
                      std::string(c.check.pays ? "commit" : "stay on-demand") +
                          (c.check.term_months > w.months ? " (term " + count(c.check.term_months) + " mo > horizon)" : "")});
  return t;
}

// The verdict at one end with what it owns, and owning that many minus renting: negative where owning wins.
std::string sensitivity_cell(const Words& w, const Decision& d, double diff, int compared) {
  const std::string signed_diff = (diff >= 0 ? "+" : "") + w.amount(diff);
  if (d.verdict == Verdict::rent) return "RENT (own " + count(compared) + ": " + signed_diff + ")";
  return std::string(to_string(d.verdict)) + " " + count(d.owned_gpus) + " (" + signed_diff + ")";
}

Table sensitivity_table(const Words& w) {
  const std::string sw = pct(w.c.swing);
  Table t;
  t.title = "Sensitivity (each input ±" + sw + "; the verdict, the GPUs it owns, and owning them minus renting per month)";
  t.columns = {"input", "base", "-" + sw, "+" + sw, "verdict flips"};
  t.align.assign(t.columns.size(), Align::left);
  for (const auto& row : w.a.sensitivity) {
    const Sensitivity& x = row.s;
    std::string flips;
    for (const auto& [m, v, word] : {std::tuple{x.flip_down, row.flip_down_verdict, "below"}, std::tuple{x.flip_up, row.flip_up_verdict, "above"}}) {
      if (!m || !v) continue;
      flips += (flips.empty() ? "" : "; ") + std::string(to_string(*v)) + " " + word + " " + factor_value(x.factor, *m, w.in, w.a, w.c, w.style);
    }
    t.rows.push_back({factor_label(x.factor), factor_value(x.factor, 1.0, w.in, w.a, w.c, w.style),
                      sensitivity_cell(w, x.low, x.low_buy_minus_rent, x.low_compared_owned),
                      sensitivity_cell(w, x.high, x.high_buy_minus_rent, x.high_compared_owned), flips.empty() ? "not in range" : flips});
  }
  return t;
}

Table chart_table(const Words& w) {
  const TcoAnalysis& a = w.a;
  const bool partial = a.partial_owned.has_value();
  Table t;
  t.title = "Cumulative cost (" + w.c.currency + "; owning pays the price up front" +
            (w.in.owned.financing_per_year > 0 ? ", financed: monthly payments" : "") + ", resale back at the end)";
  t.columns = {"month", "rent", "buy"};
  if (partial) t.columns.push_back((a.partial_rents ? "hybrid (own " : "buy (own ") + count(*a.partial_owned) + ")");
  t.align.assign(t.columns.size(), Align::left);
  t.align[0] = Align::right;
  double top = 0;
  for (const auto* series : {&a.cumulative_rent, &a.cumulative_buy, &a.cumulative_partial})
    for (double v : *series) top = std::max(top, v);
  const int step = std::max(1, (w.months + 11) / 12);
  for (int m = 0; m <= w.months; m += step) {
    auto cell = [&](const std::vector<double>& v) {
      const std::string b = bar(top > 0 ? v[static_cast<std::size_t>(m)] / top : 0, 16);
      return b + (b.empty() ? "" : " ") + w.amount(v[static_cast<std::size_t>(m)], 0);
    };
    std::vector<std::string> cells = {count(m), cell(a.cumulative_rent), cell(a.cumulative_buy)};
    if (partial) cells.push_back(cell(a.cumulative_partial));
    t.rows.push_back(cells);
    if (m + step > w.months && m != w.months) m = w.months - step;  // always end on the last month
  }
  return t;
}

}  // namespace

std::vector<std::string> tco_reasons(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, MoneyStyle style) {
  const Words w{in, a, c, style};
  std::vector<std::string> out = {verdict_reason(w), break_even_reason(w), payback_reason(w), uncertainty_reason(w)};
  alternative_reasons(w, out);
  return out;
}

json tco_json(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, const std::vector<std::string>& reasons) {
  const Decision& d = a.decision;
  const int n = in.fleet_gpus;
  json j;
  j["verdict"] = to_string(d.verdict);
  j["owned_gpus"] = d.owned_gpus;
  j["fleet_gpus"] = n;
  j["gpu"] = c.gpu;
  j["currency"] = c.currency;
  j["horizon_months"] = in.horizon_months;
  j["reasons"] = reasons;
  j["model"] = c.jobs > 0 ? "jobs" : "divisible_hours";
  const bool profile = c.profile_periods > 0;
  j["demand"] = {{"source", c.demand_source}, {"gpu_hours_per_month", c.hours_per_month},
                 {"utilization", c.hours_per_month / (n * kMonth)}, {"peak_gpus", c.peak_gpus >= 0 ? c.peak_gpus : in.demand.peak_gpus()},
                 {"jobs", c.jobs > 0 ? json(c.jobs) : json(nullptr)}, {"uncertainty", in.uncertainty}, {"uncertainty_rule_applied", d.rule_applied},
                 {"periods", profile ? json(c.profile_periods) : json(nullptr)},
                 {"period", profile ? json(c.profile_period) : json(nullptr)}};
  j["rent_offer"] = offer_json(main_offer(in.rent, a.rent), in.rent.pricing);
  j["rent_offer"]["equivalent"] = c.rented_equivalent;
  j["rent_offer"]["hours_scale"] = in.rent.hours_scale;
  j["burst_offer"] = a.partial_rents ? offer_json(main_offer(in.rent, *a.partial), in.rent.pricing) : json(nullptr);
  j["monthly"] = money_json(a);
  j["options"] = options_json(a);
  j["break_even_gpu_hours_per_month"] = opt(a.break_even_gpu_hours);
  j["break_even_utilization"] = a.break_even_gpu_hours ? json(*a.break_even_gpu_hours / (n * kMonth)) : json(nullptr);
  j["payback_months"] = opt(a.payback_months);
  j["hybrid_curve"] = json::array();
  for (const auto& p : d.curve) j["hybrid_curve"].push_back({{"owned_gpus", p.owned_gpus}, {"monthly", p.monthly}, {"feasible", p.feasible}});
  j["reserved"] = reserved_json(a);
  j["sensitivity"] = json::array();
  for (const auto& row : a.sensitivity) j["sensitivity"].push_back(sensitivity_json(row));
  j["cumulative"] = cumulative_json(in, a);
  j["assumptions"] = assumptions_json(in.owned, c.defaults);
  return j;
}

std::vector<Table> tco_tables(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, const std::vector<std::string>& reasons,
                              MoneyStyle style) {
  const Words w{in, a, c, style};
  std::vector<Table> out = {verdict_table(w, reasons), monthly_table(w)};
  if (!a.curve.empty()) out.push_back(curve_table(w));
  if (!a.commitments.empty()) out.push_back(reserved_table(w));
  if (!a.sensitivity.empty()) out.push_back(sensitivity_table(w));
  out.push_back(chart_table(w));
  return out;
}

std::vector<std::string> tco_notes(const TcoNotes& n, MoneyStyle style) {
  std::vector<std::string> out;
  for (const auto& w : n.stand_ins) out.push_back("warning: " + stand_in_text(w, style));
  if (!n.stand_ins.empty()) out.push_back("(!) = no figure for " + n.country + " was found: a US one converted at the exchange rate stands in");
  for (const auto& x : n.demand) out.push_back(setup_note_text(x));
  for (const auto& x : n.inputs) out.push_back(setup_note_text(x));
  if (n.divisible)
    out.push_back("divisible-hours model: demand is GPU-hours that can be spread over any of the GPUs; give a job log as --demand "
                  "to replay the jobs whole (as replay and advise do)");
  for (const auto& src : n.sources) out.push_back("source of the " + n.country + " default " + src);
  if (!n.defaults.empty()) out.push_back(defaults_line("defaults used (override with the flag; sources in README \"Buy or rent\"): ", n.defaults, style));
  if (!n.fx_as_of.empty()) out.push_back("exchange rates as of " + n.fx_as_of);
  return out;
}

Table tco_series_table(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c) {
  Table t;
  t.title = "Cumulative cost by month (" + c.currency + ")";
  t.columns = {"month", "rent", "buy"};
  if (a.partial_owned) t.columns.push_back("own_" + count(*a.partial_owned));
  for (std::size_t m = 0; m <= static_cast<std::size_t>(in.horizon_months); ++m) {
    std::vector<std::string> cells = {std::to_string(m), num(a.cumulative_rent[m], 2), num(a.cumulative_buy[m], 2)};
    if (a.partial_owned) cells.push_back(num(a.cumulative_partial[m], 2));
    t.rows.push_back(cells);
  }
  return t;
}

}  // namespace gpuplan::io
