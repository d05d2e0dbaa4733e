#include "cli/buy_vs_rent_inputs.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "cli/common.hpp"
#include "cli/flag_ranges.hpp"
#include "cli/ownership_flags.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "gpuplan/rent_choice.hpp"
#include "gpuplan/tco_analysis.hpp"
#include "gpuplan/tco_defaults.hpp"
#include "gpuplan/tco_purchase.hpp"
#include "gpuplan/units.hpp"
#include "io/render/price_warning_text.hpp"
#include "io/render/tco_render.hpp"
#include "io/text/files.hpp"
#include "io/usage/job_log.hpp"

namespace gpuplan::cli {
namespace td = tco_defaults;
namespace {

constexpr int kMaxFleet = 1024;

double uncertainty_flag(std::string text) {
  for (const char* prefix : {"\xC2\xB1", "+/-", "+-"}) {
    const std::string p = prefix;
    if (text.compare(0, p.size(), p) == 0) {
      text = text.substr(p.size());
      break;
    }
  }
  return fraction_flag("--uncertainty", text, 0.0, 1.0, "±40%");
}

}  // namespace


void add_buy_vs_rent_options(CLI::App& cmd, BuyVsRentFlags& f) {
  // --provider, --region and --country as compare defines them; --offer is one pinned offer here.
  add_offer_filter_options(cmd, f.place, false);
  remove_option(cmd, "--offer");
  remove_option(cmd, "--max-gpus");
  cmd.add_option("--gpu", f.gpu, "The GPU to buy (id or alias, e.g. rtx-4090, \"H100\")")->required();
  cmd.add_option("--count", f.count, "GPUs to buy, and the GPUs the work runs on at once (default: what the peak demand needs)");
  cmd.add_option("--gpu-hours-per-month", f.gpu_hours, "Expected demand in GPU-hours a month (730 h), e.g. 300");
  cmd.add_option("--gpu-hours-per-week", f.gpu_hours_week, "The same demand a week (168 h): x 730/168 a month");
  cmd.add_option("--utilization", f.utilisation, "Expected demand as a share of --count GPUs around the clock, e.g. 60%");
  cmd.add_option("--utilisation", f.utilisation, "Old spelling of --utilization")->group("");  // hidden alias
  cmd.add_option("--demand", f.demand, "Demand profile: CSV or YAML of GPU-hours (or GPUs busy) per day or week");
  cmd.add_option("--uncertainty", f.uncertainty, "How far demand may be off, e.g. ±40% (from 30% on, owned GPUs must pay at the low end)");
  cmd.add_option("--offer", f.offer, "Rent on this offer, as provider/offer (default: the cheapest of the same GPU)");
  cmd.add_option("--pricing", f.run.pricing, "Rent as on-demand | spot | reserved-1y | reserved-3y")->capture_default_str();
  add_ownership_options(cmd, f.own);
  cmd.add_option("--tax", f.run.tax, "Tax on the rental bill, e.g. 18% (default: the sheet's own)");
  cmd.add_option("--tax-basis", f.run.tax_basis, "inclusive | exclusive: count GST/tax in both sides' totals or leave it out")->capture_default_str();
  cmd.add_flag("--input-tax-credit", f.run.input_tax_credit,
               "A GST-registered business: GST on rent and hardware comes back as input-tax credit (customs duty does not)");
  f.run.currency.clear();  // resolved from the buyer's country
  cmd.add_option("--currency", f.run.currency, "Show money in this currency, display only (ISO code; default: INR for --buyer-country IN, else USD)");
  cmd.add_option("--fx", f.run.fx, "Exchange rate override, e.g. USD:INR=83.2 (repeatable)");
  cmd.add_option("--stale-after", f.run.stale_after, "Flag rent sheets whose prices are older than this many days")->capture_default_str();
  cmd.add_option("--preemptions-per-hour", f.run.preemptions_per_hour, "Spot preemption rate per instance (default: the offer's)");
  cmd.add_option("--checkpoint-time", f.checkpoint_time, "Time to write one checkpoint on spot, e.g. 2m")->capture_default_str();
  cmd.add_option("--restart-time", f.run.restart_time, "Relaunch and reload time after a spot preemption")->capture_default_str();
}

namespace {

// --demand FILE when it is a job log: its summary, its jobs as replay takes them (no team marked
// as checkpointing, so bursts rent on-demand) and the demand of its days. False: not a job log.
bool read_job_log(const std::string& path, const DemandSummary* summary, BuyVsRentSetup& s) {
  if (summary) {
    s.log = *summary;
  } else {
    // A job log streams (no whole-file cap); standard input is read once and told apart whole.
    std::optional<io::JobLog> read;
    if (path == "-") {
      const std::string text = io::read_file(path);
      if (!io::looks_like_job_log(text)) return false;
      read = io::parse_job_log(text, path);
    } else {
      if (!io::file_looks_like_job_log(path)) return false;
      read = io::load_job_log(path);
    }
    const io::JobLog& log = *read;
    s.log = summarise_demand(log.jobs);
    s.jobs = replay_jobs(log.jobs, ReplayMapping{});
  }
  if (s.log->jobs == 0) throw InputError(SourceLocation{path, 0, 0}, "", "no job that used a GPU and ran (check AllocTRES/gpus)");
  s.in.demand = demand_of_log(*s.log);
  s.demand_source = "jobs";
  s.demand_notes.push_back(io::DemandFromLog{path, s.log->jobs, s.log->span_hours / 24, s.log->months});
  return true;
}

// The demand flags (or the profile file), the fleet width and the uncertainty.
void read_demand(const BuyVsRentFlags& f, BuyVsRentSetup& s) {
  const int demand_flags = !f.gpu_hours.empty() + !f.gpu_hours_week.empty() + !f.utilisation.empty() + !f.demand.empty() +
                           f.known.gpu_hours_per_week.has_value() + f.known.utilization.has_value();
  if (demand_flags == 0)
    bad_flag("--gpu-hours-per-month", "give the demand: --gpu-hours-per-month H (or --gpu-hours-per-week), --utilization P% (of --count GPUs) or --demand FILE");
  if (demand_flags > 1) bad_flag("--gpu-hours-per-month", "give one of --gpu-hours-per-month, --gpu-hours-per-week, --utilization or --demand");
  s.count_given = !f.count.empty() || f.known.count;
  int count = f.known.count.value_or(0);
  if (!f.count.empty()) {
    auto c = parse_int(f.count, 1, kMaxFleet);
    if (!c) bad_flag("--count", c.error);
    count = static_cast<int>(*c.value);
  }
  if (!f.uncertainty.empty()) s.in.uncertainty = uncertainty_flag(f.uncertainty);
  if (f.known.uncertainty) s.in.uncertainty = *f.known.uncertainty;
  const double u = s.in.uncertainty;
  if (!f.demand.empty() && read_job_log(f.demand, f.demand_log, s)) {
    // measured jobs: demand_of_log, and the decision replays them (analyse_buy_vs_rent)
  } else if (!f.demand.empty()) {
    s.profile = io::load_demand_profile(f.demand);
    s.in.demand = profile_demand(s.profile->gpu_hours, s.profile->period_hours);
    s.demand_source = "file";
    if (s.profile->from_jobs)
      s.demand_notes.push_back(io::DemandFromJobs{f.demand, s.profile->jobs, s.profile->jobs_peak_gpus});
  } else {
    double h = 0;
    if (f.known.gpu_hours_per_week) {
      h = per_week_to_per_month(*f.known.gpu_hours_per_week);
      s.demand_source = "gpu_hours_per_month";
    } else if (f.known.utilization) {
      h = *f.known.utilization * (s.count_given ? count : 1) * td::kHoursPerMonth;
      s.demand_source = "utilization";
    } else if (!f.gpu_hours.empty() || !f.gpu_hours_week.empty()) {
      const bool weekly = f.gpu_hours.empty();
      const char* flag = weekly ? "--gpu-hours-per-week" : "--gpu-hours-per-month";
      auto v = parse_count(weekly ? f.gpu_hours_week : f.gpu_hours);
      if (!v) bad_flag(flag, v.error);
      h = weekly ? per_week_to_per_month(*v.value) : *v.value;
      if (h > 1e9) bad_flag(flag, "more than 1e9 GPU-hours a month");
      s.demand_source = "gpu_hours_per_month";
    } else {
      const double util = fraction_flag("--utilization", f.utilisation, 0.0, 1.0, "60%");
      h = util * (s.count_given ? count : 1) * td::kHoursPerMonth;
      s.demand_source = "utilization";
    }
    s.in.demand = uncertain_demand(h, u);
  }
  s.hours_per_month = s.log ? s.log->gpu_hours_per_month : s.in.demand.gpu_hours_per_month();
  // A log's peak is its most GPUs busy at once, not its busiest day's average.
  const double peak = s.log ? s.log->peak_gpus : s.in.demand.peak_gpus();
  const int needed = std::max(1, static_cast<int>(std::ceil(peak - 1e-9)));
  if (s.count_given) {
    s.in.fleet_gpus = count;
    if (needed > count)
      s.demand_notes.push_back(io::PeakOverCount{peak, count});
  } else {
    if (needed > kMaxFleet)
      bad_flag("--gpu-hours-per-month", "demand needs " + std::to_string(needed) + " GPUs at its peak; at most " +
                                            std::to_string(kMaxFleet) + " are modelled");
    s.in.fleet_gpus = needed;
  }
}

// The spot terms a month of rented work runs under.
RunInputs rent_bill(const BuyVsRentFlags& f, const RunSettings& run) {
  RunInputs bill;
  bill.tax_rate = run.spec.bill.tax_rate;
  bill.tax_basis = run.spec.bill.tax_basis;
  bill.input_tax_credit = run.spec.bill.input_tax_credit;
  bill.preemptions_per_hour = run.spec.bill.preemptions_per_hour;
  bill.restart_seconds = run.spec.bill.restart_seconds;
  bill.max_restarts = INT_MAX;  // a month of work, not one job: no cap
  auto ckpt = parse_seconds(f.checkpoint_time);
  if (!ckpt) bad_flag("--checkpoint-time", ckpt.error);
  bill.checkpoint_seconds = *ckpt.value;
  return bill;
}

RentOffer rent_offer(const Provider& p, const Offer& off, const RunSettings& run) {
  return RentOffer{&off, &p, to_display(1.0, p.currency, run, p.where)};
}

// Renting may happen here: the --provider / --region / --country filter, as compare applies it.
bool allowed(const OfferFilter& place, const Provider& p, const Offer& o, const RunSettings& run) {
  return offer_matches(place, p, o, Workload{}, run.spec);
}

// Every loaded offer of one GPU with a price for `pr`, where renting may happen.
std::vector<RentOffer> offers_of(const Catalog& catalog, const std::string& gpu_id, Pricing pr, const RunSettings& run, const OfferFilter& place) {
  std::vector<RentOffer> out;
  for (const auto& p : catalog.providers)
    for (const auto& off : p.offers)
      if (off.gpu == gpu_id && off.price(pr) && allowed(place, p, off, run)) out.push_back(rent_offer(p, off, run));
  return out;
}

// --offer provider/offer, checked; sets the rented GPU.
std::pair<const Provider*, const Offer*> pinned_offer(const Catalog& c, const std::string& text, Pricing pricing, BuyVsRentSetup& s) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) bad_flag("--offer", "expected provider/offer, e.g. runpod/rtx-4090-x1, got \"" + text + "\"");
  const auto l = c.find_provider(text.substr(0, slash));
  if (!l.found) bad_flag("--offer", lookup_failure("provider", text.substr(0, slash), l));
  const std::string id = text.substr(slash + 1);
  const auto it = std::find_if(l.found->offers.begin(), l.found->offers.end(), [&](const Offer& x) { return x.id == id; });
  if (it == l.found->offers.end())
    bad_flag("--offer", "provider " + l.found->id + " has no offer '" + id + "' (gpuplan providers show " + l.found->id + ")");
  if (!it->price(pricing)) bad_flag("--offer", it->key() + " has no " + std::string(to_string(pricing)) + " price");
  s.rented_gpu = c.find_gpu(it->gpu).found;
  if (!s.rented_gpu) s.rented_gpu = s.gpu;
  return {l.found, &*it};
}

// The GPUs some offer rents at this pricing; the owned one if it is among them, else the
// nearest by memory and bf16 TFLOPS.
const Gpu* rented_gpu_for(const Catalog& c, const Gpu& gpu, Pricing pricing, const OfferFilter& place, const RunSettings& run) {
  std::set<std::string> rentable;
  for (const auto& p : c.providers)
    for (const auto& off : p.offers)
      if (off.price(pricing) && allowed(place, p, off, run)) rentable.insert(off.gpu);
  const bool filtered = !place.providers.empty() || !place.regions.empty() || !place.countries.empty();
  if (rentable.empty() && filtered)
    bad_flag(place.countries.empty() ? (place.regions.empty() ? "--provider" : "--region") : "--country",
             std::string("no loaded offer with a ") + to_string(pricing) + " price matches --provider/--region/--country");
  if (rentable.empty()) bad_flag("--pricing", std::string("no loaded offer has a ") + to_string(pricing) + " price");
  const Gpu* out = stand_in_gpu(c, gpu, rentable);
  if (!out) bad_flag("--gpu", "no loaded offer rents " + gpu.id + " or a GPU like it; pass --offer");
  return out;
}

// Renting a different GPU: its hours scale by the speed ratio, and the reader is told.
void note_equivalent(BuyVsRentSetup& s, bool pinned) {
  const Gpu& gpu = *s.gpu;
  RentTerms& rent = s.in.rent;
  rent.hours_scale = rent_hours_scale(gpu, *s.rented_gpu);
  if (!pinned) s.notes.push_back(io::RentedInstead{gpu.id, s.rented_gpu->id});
  s.notes.push_back(io::RentedHoursScaled{rent.hours_scale, rent_speed_tflops(gpu), rent_speed_tflops(*s.rented_gpu)});
  if (s.rented_gpu->memory_bytes < gpu.memory_bytes)
    s.notes.push_back(io::RentedLessMemory{gpu.id, s.rented_gpu->id, static_cast<double>(gpu.memory_bytes),
                                           static_cast<double>(s.rented_gpu->memory_bytes)});
}

// The rented offers (pinned, or the cheapest shapes of the rented GPU) and the same GPU on spot
// and on reserved terms, for comparison.
void read_rent_terms(const Catalog& catalog, const BuyVsRentFlags& f, BuyVsRentSetup& s) {
  const RunSettings& run = s.run;
  const Pricing pricing = run.spec.bill.pricing;
  const RunInputs bill = rent_bill(f, run);
  const int n = s.in.fleet_gpus;
  RentTerms& rent = s.in.rent;
  rent.pricing = pricing;
  rent.run = bill;
  const Provider* pinned_provider = nullptr;
  const Offer* pinned = nullptr;
  const OfferFilter place = build_offer_filter(f.place, catalog);
  if (!f.offer.empty()) {
    std::tie(pinned_provider, pinned) = pinned_offer(catalog, f.offer, pricing, s);
    if (!allowed(place, *pinned_provider, *pinned, run)) bad_flag("--offer", pinned->key() + " is outside --provider/--region/--country");
  } else {
    s.rented_gpu = rented_gpu_for(catalog, *s.gpu, pricing, place, run);
  }
  if (s.rented_gpu != s.gpu) note_equivalent(s, pinned != nullptr);
  rent.offers = pinned ? std::vector<RentOffer>{rent_offer(*pinned_provider, *pinned, run)}
                       : cheapest_shapes(offers_of(catalog, s.rented_gpu->id, pricing, run, place), pricing, n, bill);
  if (!option_cost(0, n, s.in.demand, s.in.owned, rent, s.in.horizon_months).feasible)
    bad_flag("--pricing", "on spot the work is preempted faster than it can progress on " + rent.offers.front().offer->key() +
                              "; lower --preemptions-per-hour or rent on-demand");
  if (pricing == Pricing::spot && !bill.preemptions_per_hour &&
      std::none_of(rent.offers.begin(), rent.offers.end(), [](const RentOffer& x) { return x.offer->spot_preemptions_per_hour.has_value(); }))
    s.notes.push_back(io::SpotRateUnstated{});
  s.spot = rent;
  s.spot.pricing = Pricing::spot;
  s.spot.offers.clear();
  if (pricing != Pricing::spot) {
    if (pinned && pinned->price(Pricing::spot)) s.spot.offers = {rent_offer(*pinned_provider, *pinned, run)};
    else if (!pinned) s.spot.offers = cheapest_shapes(offers_of(catalog, s.rented_gpu->id, Pricing::spot, run, place), Pricing::spot, n, bill);
  }
  for (Pricing term : {Pricing::reserved_1y, Pricing::reserved_3y}) {
    std::vector<RentOffer> set;
    if (pinned && pinned->price(term)) set = {rent_offer(*pinned_provider, *pinned, run)};
    else set = offers_of(catalog, s.rented_gpu->id, term, run, place);
    if (!set.empty()) s.commitments.emplace_back(term, set);
  }
}

// The owner's terms (ownership_flags.cpp) into the setup.
void read_ownership_terms(const BuyVsRentFlags& f, BuyVsRentSetup& s) {
  Ownership o;
  o.purchase = s.purchase;
  read_ownership(f.own, *s.gpu, s.run, o);
  s.in.owned = o.terms;
  s.in.horizon_months = o.horizon_months;
  s.purchase = o.purchase;
  s.defaults.insert(s.defaults.end(), o.defaults.begin(), o.defaults.end());
  s.notes.insert(s.notes.end(), o.notes.begin(), o.notes.end());
  s.ops_counted = o.ops_counted;
}

}  // namespace

// The buyer's country: --buyer-country, else the US; the display currency follows it unless
// --currency says otherwise (never the other way round: showing INR owes no GST).
void read_country(BuyVsRentFlags& f, io::PurchaseReport& p) {
  read_buyer_country(f.own, p);
  if (f.run.currency.empty()) f.run.currency = country_buy_defaults(p.country, false).currency;
}

namespace {

// The stale-price and mixed-tax warnings of the sheets the rent side priced from, in the words
// every pricing command uses (price_warnings).
std::vector<std::string> rent_price_warnings(const BuyVsRentSetup& s) {
  std::vector<const Provider*> sheets;
  const auto add = [&](const std::vector<RentOffer>& offers) {
    for (const RentOffer& o : offers) sheets.push_back(o.provider);
  };
  add(s.in.rent.offers);
  add(s.spot.offers);
  for (const auto& c : s.commitments) add(c.second);
  return io::price_warning_texts(price_warnings(sheets, s.run));
}

}  // namespace

BuyVsRentSetup build_buy_vs_rent(const Context& ctx, const BuyVsRentFlags& flags) {
  BuyVsRentFlags f = flags;
  BuyVsRentSetup s;
  read_country(f, s.purchase);
  s.run = build_run_settings(ctx, f.run, Workload{});
  s.purchase.basis = s.run.spec.bill.tax_basis;
  s.purchase.input_tax_credit = s.run.spec.bill.input_tax_credit;
  // Both sides on one basis: a buyer in India pays GST on rented hours as on hardware, whatever
  // tax the sheet lists (a foreign sheet lists none); --tax overrides, input-tax credit recovers.
  if (const auto gst = country_buy_defaults(s.purchase.country, false).rent_gst; gst && f.run.tax.empty()) {
    s.run.spec.bill.tax_rate = gst->value;
    s.purchase.sources.push_back("rent GST: " + gst->source);
  }
  s.gpu = &resolve_gpu(ctx.catalog(), f.gpu);
  s.in.uncertainty_rule = td::kUncertaintyRule;
  read_demand(f, s);
  read_ownership_terms(f, s);
  read_rent_terms(ctx.catalog(), f, s);
  if (!f.place.countries.empty() && f.own.buyer_country.empty())
    s.notes.push_back(io::RentCountryNotBuyer{s.purchase.country});
  s.price_warnings = rent_price_warnings(s);
  return s;
}

FleetCostTerms fleet_cost_terms(const BuyVsRentSetup& s) {
  FleetCostTerms t;
  t.owned = s.in.owned;
  t.on_demand = s.in.rent;
  t.spot = s.spot;
  t.horizon_months = s.in.horizon_months;
  if (s.log) t.months = s.log->months;
  return t;
}

BuyVsRentAnalysis analyse_buy_vs_rent(const BuyVsRentSetup& s) {
  BuyVsRentAnalysis out;
  if (!s.log) {
    out.a = analyse_tco(s.in, s.spot, s.commitments, tco_defaults::kSensitivitySwing);
    return out;
  }
  out.jobs = analyse_tco_jobs(s.in, s.jobs, fleet_cost_terms(s), buildable_fleets(s.in.fleet_gpus, s.in.owned.gpus_per_build));
  out.a = out.jobs->analysis;
  return out;
}

}  // namespace gpuplan::cli
