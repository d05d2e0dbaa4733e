// gpuplan buy-vs-rent: the total cost of owning GPUs against renting the same work, with the
// break-even, payback, the hybrid curve (own a baseline, burst to the cloud), reserved
// commitments, sensitivity with flip points, and cumulative cost over the horizon.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/buy_vs_rent_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/tco.hpp"
#include "gpuplan/tco_defaults.hpp"

namespace gpuplan::cli {
namespace {

using nlohmann::json;
constexpr double kMonth = tco_defaults::kHoursPerMonth;

std::string pct(double share, int decimals = 0) { return num(share * 100, decimals) + "%"; }

json cost_json(const MonthlyCost& m) {
  return {{"owned_gpus", m.owned_gpus}, {"capital", m.capital}, {"power", m.power}, {"maintenance", m.maintenance},
          {"failures", m.failures}, {"colo", m.colo}, {"ops", m.ops}, {"rent", m.rent}, {"total", m.total},
          {"owned_gpu_hours", m.owned_gpu_hours}, {"rented_gpu_hours", m.rented_gpu_hours}};
}

// The offer that carried most of an option's rent (the first listed when nothing was rented).
const RentOffer& main_offer(const RentTerms& r, const MonthlyCost& m) {
  return r.offers[m.rent_offer >= 0 ? static_cast<std::size_t>(m.rent_offer) : 0];
}

// The value a sensitivity multiplier stands for, in words: "212.3 GPU-h/month".
std::string factor_value(Factor f, double multiplier, const BuyVsRentSetup& s) {
  const std::string& cur = s.run.currency;
  const TcoInputs& in = s.in;
  switch (f) {
    case Factor::demand: return num(s.hours_per_month * multiplier, 1) + " GPU-h/month";
    case Factor::power_price: return money(in.owned.power_price_per_kwh * multiplier, cur, 3) + "/kWh";
    case Factor::resale: {
      const double kept = std::pow(in.owned.resale_kept_per_year, in.horizon_months / 12.0) * multiplier;
      return pct(kept, 1) + " of the price back";
    }
    case Factor::cloud_price: {
      const RentOffer& o = main_offer(in.rent, option_cost(0, in.fleet_gpus, in.demand, in.owned, in.rent, in.horizon_months));
      return money(o.offer->price(in.rent.pricing).value_or(0) * o.currency_rate * multiplier, cur, 3) + "/GPU-h";
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

void run_buy_vs_rent(const BuyVsRentFlags& f) {
  const BuyVsRentSetup s = build_buy_vs_rent(f);
  const TcoInputs& in = s.in;
  const std::string& cur = s.run.currency;
  const int n = in.fleet_gpus, months = in.horizon_months;
  const std::string gpu = s.gpu->id;
  auto cost_of = [&](int k) { return option_cost(k, n, in.demand, in.owned, in.rent, months); };
  auto m_ = [&](double v) { return money(v, cur); };

  const Decision d = decide(in);
  const MonthlyCost rent = cost_of(0), buy = cost_of(n);
  const RentOffer& rent_offer = main_offer(in.rent, rent);
  const std::string offer_label = rent_offer.offer->key() + " " + to_string(in.rent.pricing);
  // The partial option shown beside renting and owning all: the verdict's own count when it owns
  // some but not all, else the cheapest count in between. It is a hybrid when it rents.
  std::optional<int> hybrid_k;
  if (d.owned_gpus > 0 && d.owned_gpus < n) hybrid_k = d.owned_gpus;
  else
    for (const auto& p : d.curve)
      if (p.owned_gpus > 0 && p.owned_gpus < n && p.feasible && (!hybrid_k || p.monthly < d.monthly(*hybrid_k))) hybrid_k = p.owned_gpus;
  std::optional<MonthlyCost> hybrid;
  if (hybrid_k) hybrid = cost_of(*hybrid_k);
  const bool hybrid_rents = hybrid && hybrid->rent > 0;
  const std::string burst_label =
      hybrid_rents ? main_offer(in.rent, *hybrid).offer->key() + " " + to_string(in.rent.pricing) : offer_label;
  const std::string partial_label =
      !hybrid ? "" : hybrid_rents ? "hybrid: own " + std::to_string(*hybrid_k) + ", rent the rest on " + burst_label
                                  : "buy: own " + std::to_string(*hybrid_k) + " of " + std::to_string(n);
  const MonthlyCost choice = cost_of(d.owned_gpus);
  const std::string choice_burst = main_offer(in.rent, choice).offer->key() + " " + to_string(in.rent.pricing);
  std::optional<MonthlyCost> spot;
  std::string spot_label;
  if (!s.spot.offers.empty()) {
    const MonthlyCost m = option_cost(0, n, in.demand, in.owned, s.spot, months);
    if (m.feasible) spot = m, spot_label = main_offer(s.spot, m).offer->key() + " spot";
  }
  struct Commit {
    CommitmentCheck check;
    const Offer* offer;
  };
  std::vector<Commit> commits;
  for (const auto& [term, set] : s.commitments) {
    if (term == in.rent.pricing) continue;  // already the rent option
    TcoInputs t = in;
    t.rent.offers = set;
    if (auto cc = commitment_check(t, term)) commits.push_back({*cc, set[static_cast<std::size_t>(cc->offer)].offer});
  }
  const auto be = break_even_gpu_hours(in);
  const int pay_k = d.owned_gpus > 0 ? d.owned_gpus : n;
  const MonthlyCost pay_cost = cost_of(pay_k);
  const auto payback = payback_months(pay_cost, rent, capex_for(pay_k, in.owned, months));
  std::vector<Sensitivity> sens;
  for (Factor fac : {Factor::demand, Factor::power_price, Factor::resale, Factor::cloud_price})
    sens.push_back(sensitivity(in, d, fac, tco_defaults::kSensitivitySwing));
  const double util = s.hours_per_month / (n * kMonth);

  // --- reasons, in words and numbers ---------------------------------------------------------
  std::vector<std::string> reasons;
  const std::string demand_words = num(s.hours_per_month, 0) + " GPU-h/month (" + pct(util) + " of " + std::to_string(n) + " GPU" +
                                   (n > 1 ? "s" : "") + ")";
  const std::string own_words = std::to_string(n) + " x " + gpu;
  switch (d.verdict) {
    case Verdict::rent:
      reasons.push_back("renting on " + offer_label + " costs " + m_(rent.total) + "/month against " + m_(buy.total) +
                        "/month owning " + own_words + ", at " + demand_words);
      break;
    case Verdict::buy:
      if (d.owned_gpus < n)
        reasons.push_back("owning " + std::to_string(d.owned_gpus) + " x " + gpu + " (of the " + std::to_string(n) + ") serves all " +
                          num(s.hours_per_month, 0) + " GPU-h/month at " + pct(choice.owned_gpu_hours / (d.owned_gpus * kMonth)) +
                          " utilisation, if the work can be spread over them: " + m_(choice.total) + "/month against " +
                          m_(rent.total) + " renting on " + offer_label + " and " + m_(buy.total) + " owning all " + std::to_string(n) +
                          ": " + m_((rent.total - choice.total) * months) + " saved over " + std::to_string(months) + " months");
      else
        reasons.push_back("owning " + own_words + " costs " + m_(buy.total) + "/month against " + m_(rent.total) + "/month renting on " +
                          offer_label + ", at " + demand_words + ": " + m_((rent.total - buy.total) * months) + " saved over " +
                          std::to_string(months) + " months");
      break;
    case Verdict::hybrid:
      if (d.owned_gpus < n)
        reasons.push_back("owning " + std::to_string(d.owned_gpus) + " of " + std::to_string(n) + " x " + gpu + " and renting the rest on " +
                          choice_burst + " costs " + m_(choice.total) + "/month, against " + m_(rent.total) + " renting everything and " +
                          m_(buy.total) + " owning all " + std::to_string(n) + ", at " + demand_words);
      else
        reasons.push_back("owning " + own_words + " and renting the overflow on " + choice_burst + " costs " + m_(choice.total) +
                          "/month against " + m_(rent.total) + " renting everything, at " + demand_words + " (more than " +
                          std::to_string(n) + " GPUs can serve)");
      break;
  }
  if (be)
    reasons.push_back("break-even at " + num(*be, 1) + " GPU-h/month (" + pct(*be / (n * kMonth), 1) + " utilisation of " +
                      std::to_string(n) + " owned GPU" + (n > 1 ? "s" : "") + ", steady demand); expected demand is " + num(s.hours_per_month, 1));
  else if (buy.total - rent.total > 0 || in.rent.pricing == Pricing::on_demand || in.rent.pricing == Pricing::spot)
    reasons.push_back("no break-even: renting stays cheaper than owning " + own_words + " even at 100% utilisation");
  else
    reasons.push_back("no break-even: owning " + own_words + " is cheaper than the commitment at any utilisation");
  if (payback)
    reasons.push_back("payback in " + num(*payback, 1) + " months for " + std::to_string(pay_k) + " owned (price" +
                      (in.owned.financing_per_year > 0 ? " plus interest" : "") + " over the monthly saving; resale not counted), " +
                      (*payback <= months ? "within" : "beyond") + " the " + std::to_string(months) + "-month horizon");
  else
    reasons.push_back("owning " + std::to_string(pay_k) + " never pays back: it saves nothing per month against renting");
  if (d.rule_applied) {
    std::string r = "demand is uncertain by ±" + pct(in.uncertainty) + " (the seeds' rule: avoid buying when utilisation cannot be predicted within about 30-50%): at the low end (" +
                    num(s.hours_per_month * (1 - in.uncertainty), 0) + " GPU-h/month) owning " + std::to_string(d.owned_at_low_end) + " pays";
    if (d.owned_gpus != d.cheapest_owned)
      r += ", so the verdict owns " + std::to_string(d.owned_gpus) + " instead of the " + std::to_string(d.cheapest_owned) +
           " that expected cost alone picks (" + m_(d.monthly(d.cheapest_owned)) + "/month)";
    reasons.push_back(r);
  } else if (in.uncertainty > 0) {
    reasons.push_back("demand uncertain by ±" + pct(in.uncertainty) + ", under the seeds' 30% threshold: expected cost decides");
  } else {
    reasons.push_back("no --uncertainty given: the seeds' rule (avoid buying when utilisation cannot be predicted within about 30-50%) is not applied");
  }
  if (s.profile) {
    double low = 1e300;
    for (const auto& p : in.demand.periods) low = std::min(low, p.gpu_hours / p.length_hours);
    reasons.push_back("the profile's " + std::to_string(s.profile->gpu_hours.size()) + " " + s.profile->period + "s average " +
                      num(s.hours_per_month, 0) + " GPU-h/month, from " + num(low, 1) + " to " + num(in.demand.peak_gpus(), 1) + " GPUs busy");
  }
  const double chosen_total = choice.total;
  if (spot && spot->total < chosen_total)
    reasons.push_back("renting on " + spot_label + " would cost " + m_(spot->total) + "/month, less than the verdict's " +
                      m_(chosen_total) + ", if the work is interruptible");
  for (const auto& c : commits)
    if (c.check.pays)
      reasons.push_back(std::string(to_string(c.check.term)) + " on " + c.offer->key() + " costs " + m_(c.check.committed_per_month) +
                        "/month committed, against " + m_(c.check.on_demand_per_month) + " on-demand: it pays above " +
                        pct(c.check.break_even_utilisation) + " utilisation" +
                        (c.check.committed_per_month < chosen_total ? ", and beats the verdict's " + m_(chosen_total) : ""));

  Report r;
  json& j = r.json;
  j["verdict"] = to_string(d.verdict);
  j["owned_gpus"] = d.owned_gpus;
  j["fleet_gpus"] = n;
  j["gpu"] = gpu;
  j["currency"] = cur;
  j["horizon_months"] = months;
  j["reasons"] = reasons;
  j["demand"] = {{"source", s.demand_source}, {"gpu_hours_per_month", s.hours_per_month}, {"utilisation", util},
                 {"peak_gpus", in.demand.peak_gpus()}, {"uncertainty", in.uncertainty}, {"uncertainty_rule_applied", d.rule_applied},
                 {"periods", s.profile ? json(s.profile->gpu_hours.size()) : json(nullptr)},
                 {"period", s.profile ? json(s.profile->period) : json(nullptr)}};
  auto offer_json = [&](const RentOffer& o, Pricing p) -> json {
    return {{"provider", o.offer->provider}, {"offer", o.offer->id}, {"gpu", o.offer->gpu}, {"pricing", to_string(p)},
            {"per_gpu_hour", o.offer->price(p).value_or(0) * o.currency_rate}};
  };
  j["rent_offer"] = offer_json(rent_offer, in.rent.pricing);
  j["rent_offer"]["equivalent"] = s.rented_gpu != s.gpu;
  j["rent_offer"]["hours_scale"] = in.rent.hours_scale;
  j["burst_offer"] = hybrid_rents ? offer_json(main_offer(in.rent, *hybrid), in.rent.pricing) : json(nullptr);
  auto opt = [](const std::optional<MonthlyCost>& m) { return m ? json(m->total) : json(nullptr); };
  j["monthly"] = {{"verdict", choice.total}, {"rent", rent.total}, {"buy", buy.total},
                  {"hybrid", hybrid_rents ? opt(hybrid) : json(nullptr)}, {"spot", opt(spot)},
                  {"reserved_1y", nullptr}, {"reserved_3y", nullptr}};
  for (const auto& c : commits) j["monthly"][c.check.term == Pricing::reserved_1y ? "reserved_1y" : "reserved_3y"] = c.check.committed_per_month;
  j["options"] = json::array();
  j["options"].push_back(cost_json(rent));
  j["options"].back()["option"] = "rent";
  j["options"].push_back(cost_json(buy));
  j["options"].back()["option"] = "buy";
  if (hybrid) {
    j["options"].push_back(cost_json(*hybrid));
    j["options"].back()["option"] = hybrid_rents ? "hybrid" : "buy_fewer";
  }
  j["break_even_gpu_hours_per_month"] = be ? json(*be) : json(nullptr);
  j["break_even_utilisation"] = be ? json(*be / (n * kMonth)) : json(nullptr);
  j["payback_months"] = payback ? json(*payback) : json(nullptr);
  j["hybrid_curve"] = json::array();
  for (const auto& p : d.curve) j["hybrid_curve"].push_back({{"owned_gpus", p.owned_gpus}, {"monthly", p.monthly}, {"feasible", p.feasible}});
  j["reserved"] = json::array();
  for (const auto& c : commits)
    j["reserved"].push_back({{"term", to_string(c.check.term)}, {"provider", c.offer->provider}, {"offer", c.offer->id},
                             {"committed_monthly", c.check.committed_per_month}, {"on_demand_monthly", c.check.on_demand_per_month},
                             {"break_even_utilisation", c.check.break_even_utilisation}, {"pays", c.check.pays},
                             {"term_months", c.check.term_months}});
  j["sensitivity"] = json::array();
  for (const auto& x : sens) {
    auto flip = [&](const std::optional<double>& m) -> json {
      if (!m) return nullptr;
      return {{"multiplier", *m}, {"verdict", to_string(decide(with_factor(in, x.factor, *m)).verdict)}};
    };
    j["sensitivity"].push_back({{"factor", to_string(x.factor)}, {"swing", x.swing},
                                {"low", {{"verdict", to_string(x.low.verdict)}, {"owned_gpus", x.low.owned_gpus}, {"buy_minus_rent_monthly", x.low_buy_minus_rent}}},
                                {"high", {{"verdict", to_string(x.high.verdict)}, {"owned_gpus", x.high.owned_gpus}, {"buy_minus_rent_monthly", x.high_buy_minus_rent}}},
                                {"flip_down", flip(x.flip_down)}, {"flip_up", flip(x.flip_up)}});
  }
  const auto rent_c = cumulative_cost(0, in), buy_c = cumulative_cost(n, in);
  std::vector<double> hybrid_c;
  if (hybrid_k) hybrid_c = cumulative_cost(*hybrid_k, in);
  j["cumulative"] = {{"months", json::array()}, {"rent", rent_c}, {"buy", buy_c},
                     {"partial", hybrid_k ? json(hybrid_c) : json(nullptr)}, {"partial_owned_gpus", hybrid_k ? json(*hybrid_k) : json(nullptr)}};
  for (int t = 0; t <= months; ++t) j["cumulative"]["months"].push_back(t);
  j["assumptions"] = {{"gpu_price", in.owned.gpu_price}, {"rest_of_machine_per_build", in.owned.rest_of_machine_per_build},
                      {"gpus_per_build", in.owned.gpus_per_build}, {"tdp_watts", in.owned.tdp_watts},
                      {"load_factor", in.owned.load_factor}, {"idle_power_share", in.owned.idle_power_share}, {"pue", in.owned.pue},
                      {"power_price_per_kwh", in.owned.power_price_per_kwh}, {"maintenance_per_year", in.owned.maintenance_per_year},
                      {"failures_per_gpu_year", in.owned.failures_per_gpu_year}, {"colo_per_kw_month", in.owned.colo_per_kw_month},
                      {"ops_hours_per_month", in.owned.ops_hours_per_month}, {"engineer_rate_per_hour", in.owned.engineer_rate_per_hour},
                      {"resale_kept_per_year", in.owned.resale_kept_per_year}, {"financing_per_year", in.owned.financing_per_year},
                      {"defaults_used", s.defaults}};

  // --- tables --------------------------------------------------------------------------------
  using io::Align;
  io::Table verdict;
  verdict.title = std::string("Verdict: ") + to_string(d.verdict) +
                  (d.verdict == Verdict::rent ? " on " + offer_label
                   : d.verdict == Verdict::buy ? ": own " + std::to_string(d.owned_gpus) + " x " + gpu +
                                                     (d.owned_gpus < n ? " of " + std::to_string(n) : "")
                                               : ": own " + (d.owned_gpus < n ? std::to_string(d.owned_gpus) + " of " : std::string()) + own_words +
                                                   ", burst to " + choice_burst) +
                  " (" + std::to_string(months) + "-month horizon, " + cur + ")";
  verdict.columns = {"why"};
  for (const auto& x : reasons) verdict.rows.push_back({x});

  io::Table monthly;
  monthly.title = "Monthly cost per option (expected, " + cur + ")";
  monthly.columns = {"option", "owned", "capital", "power", "upkeep", "colo+ops", "rented", "per month", "over " + std::to_string(months) + " mo"};
  monthly.align = {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right};
  auto row = [&](const std::string& name, const MonthlyCost& m) {
    monthly.rows.push_back({name, std::to_string(m.owned_gpus), num(m.capital, 2), num(m.power, 2), num(m.maintenance + m.failures, 2),
                            num(m.colo + m.ops, 2), num(m.rent, 2), num(m.total, 2), num(m.total * months, 2)});
  };
  row("rent: " + offer_label, rent);
  row("buy: " + own_words, buy);
  if (hybrid) row(partial_label, *hybrid);
  if (spot) row("rent: " + spot_label, *spot);
  for (const auto& c : commits) {
    MonthlyCost m;
    m.rent = m.total = c.check.committed_per_month;
    row("rent: " + c.offer->key() + " " + to_string(c.check.term), m);
  }

  io::Table curve;
  if (n >= 2) {
    curve.title = "Hybrid: expected monthly cost by owned GPUs (the rest rented on the cheapest " + s.rented_gpu->id + " " +
                  to_string(in.rent.pricing) + " shape)";
    curve.columns = {"owned", "owned use", "rented GPU-h", "per month", ""};
    curve.align = {Align::right, Align::right, Align::right, Align::right, Align::left};
    double top = 0;
    for (const auto& p : d.curve) top = std::max(top, p.monthly);
    const std::size_t step = (d.curve.size() + 15) / 16;
    for (std::size_t i = 0; i < d.curve.size(); ++i) {
      const auto& p = d.curve[i];
      if (i % step != 0 && i + 1 != d.curve.size() && p.owned_gpus != d.owned_gpus && p.owned_gpus != d.cheapest_owned) continue;
      const MonthlyCost m = cost_of(p.owned_gpus);
      const double use = p.owned_gpus > 0 ? m.owned_gpu_hours / (p.owned_gpus * kMonth) : 0;
      std::string mark = p.owned_gpus == d.owned_gpus ? " <- verdict" : p.owned_gpus == d.cheapest_owned ? " <- cheapest" : "";
      curve.rows.push_back({std::to_string(p.owned_gpus), p.owned_gpus ? pct(use) : "-", num(m.rented_gpu_hours, 0),
                            p.feasible ? num(p.monthly, 2) : "infeasible", io::bar(top > 0 ? p.monthly / top : 0, 24) + mark});
    }
  }

  io::Table reserved;
  reserved.title = "Reserved vs on-demand (committing " + std::to_string(n) + " GPUs, " + cur + "/month)";
  reserved.columns = {"term", "offer", "committed", "on-demand at demand", "pays above", "verdict"};
  reserved.align = {Align::left, Align::left, Align::right, Align::right, Align::right, Align::left};
  for (const auto& c : commits)
    reserved.rows.push_back({to_string(c.check.term), c.offer->key(), num(c.check.committed_per_month, 2), num(c.check.on_demand_per_month, 2),
                             pct(c.check.break_even_utilisation, 1),
                             std::string(c.check.pays ? "commit" : "stay on-demand") +
                                 (c.check.term_months > months ? " (term " + std::to_string(c.check.term_months) + " mo > horizon)" : "")});

  io::Table sensitivity_table;
  sensitivity_table.title = "Sensitivity (each input ±" + pct(tco_defaults::kSensitivitySwing) + "; buy - rent per month)";
  sensitivity_table.columns = {"input", "base", "-" + pct(tco_defaults::kSensitivitySwing), "+" + pct(tco_defaults::kSensitivitySwing), "verdict flips"};
  sensitivity_table.align = {Align::left, Align::left, Align::left, Align::left, Align::left};
  for (const auto& x : sens) {
    auto side = [&](const Decision& dd, double diff) { return std::string(to_string(dd.verdict)) + " (" + (diff >= 0 ? "+" : "") + num(diff, 2) + ")"; };
    std::string flips;
    for (const auto& [m, word] : {std::pair{x.flip_down, "below"}, std::pair{x.flip_up, "above"}}) {
      if (!m) continue;
      flips += (flips.empty() ? "" : "; ") + std::string(to_string(decide(with_factor(in, x.factor, *m)).verdict)) + " " + word + " " +
               factor_value(x.factor, *m, s);
    }
    sensitivity_table.rows.push_back({factor_label(x.factor), factor_value(x.factor, 1.0, s), side(x.low, x.low_buy_minus_rent),
                                      side(x.high, x.high_buy_minus_rent), flips.empty() ? "not in range" : flips});
  }

  io::Table chart;
  chart.title = "Cumulative cost (" + cur + "; owning pays the price up front" +
                (in.owned.financing_per_year > 0 ? ", financed: monthly payments" : "") + ", resale back at the end)";
  chart.columns = {"month", "rent", "buy"};
  if (hybrid_k) chart.columns.push_back((hybrid_rents ? "hybrid (own " : "buy (own ") + std::to_string(*hybrid_k) + ")");
  chart.align.assign(chart.columns.size(), Align::left);
  chart.align[0] = Align::right;
  double top = 0;
  for (const std::vector<double>* series : {&rent_c, &buy_c, static_cast<const std::vector<double>*>(&hybrid_c)})
    for (double v : *series) top = std::max(top, v);
  const int step = std::max(1, (months + 11) / 12);
  for (int t = 0; t <= months; t += step) {
    const int at = t;
    auto cell = [&](const std::vector<double>& v) {
      const std::string b = io::bar(top > 0 ? v[at] / top : 0, 16);
      return b + (b.empty() ? "" : " ") + num(v[at], 0);
    };
    std::vector<std::string> cells = {std::to_string(at), cell(rent_c), cell(buy_c)};
    if (hybrid_k) cells.push_back(cell(hybrid_c));
    chart.rows.push_back(cells);
    if (t + step > months && t != months) t = months - step;  // always end on the last month
  }

  io::Table series;
  series.title = "Cumulative cost by month (" + cur + ")";
  series.columns = {"month", "rent", "buy"};
  if (hybrid_k) series.columns.push_back("own_" + std::to_string(*hybrid_k));
  for (int t = 0; t <= months; ++t) {
    std::vector<std::string> cells = {std::to_string(t), num(rent_c[t], 2), num(buy_c[t], 2)};
    if (hybrid_k) cells.push_back(num(hybrid_c[t], 2));
    series.rows.push_back(cells);
  }

  if (output_format() == Format::csv) r.tables.push_back(series);  // CSV prints the first table: the series to plot
  r.tables.push_back(verdict);
  r.tables.push_back(monthly);
  if (!curve.rows.empty()) r.tables.push_back(curve);
  if (!reserved.rows.empty()) r.tables.push_back(reserved);
  r.tables.push_back(sensitivity_table);
  r.tables.push_back(chart);

  for (const auto& x : s.notes) r.notes.push_back(x);
  if (!s.defaults.empty()) {
    std::string line = "defaults used (override with the flag; sources in README \"Buy or rent\"): ";
    for (std::size_t i = 0; i < s.defaults.size(); ++i) line += (i ? ", " : "") + s.defaults[i];
    r.notes.push_back(line);
  }
  if (cur != "USD" || s.run.fx.as_of == "--fx") r.notes.push_back("exchange rates as of " + s.run.fx.as_of);
  print_report(r);
}

}  // namespace

void setup_buy_vs_rent(CLI::App& app) {
  auto f = std::make_shared<BuyVsRentFlags>();
  auto* cmd = app.add_subcommand("buy-vs-rent", "Own GPUs or rent them: total cost, break-even, hybrid and sensitivity");
  cmd->footer(R"(Examples:
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300
  gpuplan buy-vs-rent --gpu rtx-4090 --utilization 90% --uncertainty ±40% --power-price 0.30/kWh
  gpuplan buy-vs-rent --gpu h100-sxm --count 8 --utilization 70% --gpu-price 25000 --rest-of-machine 100000
  gpuplan buy-vs-rent --gpu rtx-4090 --demand usage.csv --offer runpod/rtx-4090-x1 --horizon 2y
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 400 --currency INR --power-price 8INR/kWh

Demand files: CSV "day,gpu_hours" (or week, gpus) with one row per period, dates or running
numbers without gaps; or YAML "period: day" and a "gpu_hours:" (or "gpus:") list.)");
  add_buy_vs_rent_options(*cmd, *f);
  add_common_options(*cmd);
  cmd->callback([f] { run_buy_vs_rent(*f); });
}

}  // namespace gpuplan::cli
