#pragma once
// Buy or rent: what owning GPUs costs over a horizon against renting the same GPU-hours, the
// break-even, payback, the hybrid (own a baseline, burst to the cloud), reserved commitments
// and how the answer moves with its inputs. Money is in one currency chosen by the caller
// (rented prices are converted with RentTerms::currency_rate). A month is 730 hours. Pure: no I/O.
#include <optional>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"

namespace gpuplan {

// Owning: the hardware and what running it costs.
struct OwnedTerms {
  double gpu_price = 0;                  // per GPU
  double rest_of_machine_per_build = 0;  // CPU, board, RAM, storage, PSU, chassis, network per build
  int gpus_per_build = 1;                // GPUs one build holds (builds = ceil(gpus / this))
  double tdp_watts = 0;                  // per GPU
  double load_factor = 1.0;              // wall power while busy, as a multiple of TDP
  double idle_power_share = 0;           // draw while owned but idle, as a share of TDP
  double pue = 1.0;                      // facility power / IT power
  double power_price_per_kwh = 0;
  double maintenance_per_year = 0;       // share of the hardware price (GPUs + rest) per year
  double failures_per_gpu_year = 0;      // GPUs replaced per GPU-year, at gpu_price
  double colo_per_kw_month = 0;          // per provisioned kW (TDP x load factor) per month
  double ops_hours_per_month = 0;        // engineer time for drivers and failed jobs (when owning any)
  double engineer_rate_per_hour = 0;
  double resale_kept_per_year = 1.0;     // residual = hardware price x kept^years
  double financing_per_year = 0;         // annual interest; 0 = bought outright
};

// Renting: offers of one GPU, priced with price_run (whole instances, increments, tax, spot
// overhead); each period rents on whichever of them is cheapest for it (a burst of 3 GPUs need
// not pay for an 8-GPU instance when a 1-GPU shape is listed).
struct RentOffer {
  const Offer* offer = nullptr;
  const Provider* provider = nullptr;
  double currency_rate = 1;              // sheet currency -> the caller's
};
struct RentTerms {
  std::vector<RentOffer> offers;         // those without a price for `pricing` are skipped
  Pricing pricing = Pricing::on_demand;  // reserved terms are commitments: every hour is paid
  double hours_scale = 1;                // rented GPU-hours per owned GPU-hour (a faster rented GPU < 1)
  double price_scale = 1;                // multiplies every rented cost (sensitivity)
  RunInputs run;                         // tax override and spot terms; compute_seconds/gpus/pricing are set here
};

// Demand as periods: each has a length, the GPU-hours wanted in it, and how many times it
// occurs per month (a profile of P days: 730 / (24 P) each; a scenario month: its probability).
struct DemandPeriod {
  double length_hours = 0;
  double gpu_hours = 0;
  double per_month = 0;
};
struct Demand {
  std::vector<DemandPeriod> periods;
  double gpu_hours_per_month() const;  // expected
  double peak_gpus() const;            // the most GPUs busy at once (gpu_hours / length)
  Demand scaled(double factor) const;
};
// One month of steady demand.
Demand steady_demand(double gpu_hours_per_month);
// Demand uncertain by ±share, uniform: `points` equally likely months at the bin midpoints.
Demand uncertain_demand(double gpu_hours_per_month, double share, int points = 10);
// A profile of consecutive periods of one length (24 h days, 168 h weeks).
Demand profile_demand(const std::vector<double>& gpu_hours, double period_hours);

struct Capex {
  int builds = 0;
  double gpus = 0, rest = 0, total = 0;  // hardware price
  double interest = 0;                   // over the horizon, when financed
  double payment_per_month = 0;          // when financed
  double residual = 0;                   // resale value at the end of the horizon
};
Capex capex_for(int owned_gpus, const OwnedTerms& o, int horizon_months);

// The expected monthly cost of owning `owned` GPUs and renting whatever demand they cannot
// serve. `fleet` is the workload's width: rented capacity runs on max(fleet - owned, the GPUs
// the leftover needs) GPUs at once.
struct MonthlyCost {
  int owned_gpus = 0;
  double capital = 0;      // (price + interest - residual) / months
  double power = 0, maintenance = 0, failures = 0, colo = 0, ops = 0;
  double rent = 0;
  double total = 0;
  double running = 0;      // power + maintenance + failures + colo + ops (what payback nets against)
  double owned_gpu_hours = 0, rented_gpu_hours = 0;  // per month, rented as billed
  int rent_offer = -1;     // index into RentTerms::offers of the offer that took most of `rent`
  bool feasible = true;    // false: no offer could finish some period (spot preempted too often)
};
MonthlyCost option_cost(int owned, int fleet, const Demand& d, const OwnedTerms& o, const RentTerms& r,
                        int horizon_months);

// What an owned GPU-hour costs the owner: a month of owning (option_cost, as buy-vs-rent prices
// it) divided by the GPU-hours the owned GPUs served in it. The full cost counts the capital
// (price + interest - resale, over the horizon), power at the load factor while busy and at the
// idle share otherwise, upkeep, failures, colocation and engineer time; the marginal cost counts
// power and maintenance only (the hardware is already paid for). nullopt when no hour was served.
struct OwnedHourCost {
  double full = 0, marginal = 0;  // money per owned GPU-hour
};
std::optional<OwnedHourCost> owned_hour_cost(const MonthlyCost& m);
// The month of owning `gpus` GPUs that are busy `utilisation` (0..1] of a 730-hour month, nothing
// rented: what estimate, compare and plan price an --owned offer from.
MonthlyCost owned_month(int gpus, double utilisation, const OwnedTerms& o, int horizon_months);

enum class Verdict { rent, buy, hybrid };
const char* to_string(Verdict v);  // "RENT", "BUY", "HYBRID"

struct TcoInputs {
  OwnedTerms owned;
  RentTerms rent;
  Demand demand;
  int fleet_gpus = 1;        // GPUs bought under BUY, and the workload's width
  int horizon_months = 36;
  double uncertainty = 0;    // ± share of demand the user cannot predict
  double uncertainty_rule = 0.30;  // from this uncertainty on, owned GPUs must pay at the low end
};

struct CurvePoint {
  int owned_gpus = 0;
  double monthly = 0;    // expected total per month
  bool feasible = true;
};
struct Decision {
  Verdict verdict = Verdict::rent;  // RENT owns none; BUY owns GPUs that serve all demand; HYBRID also rents
  int owned_gpus = 0;              // what the verdict owns (BUY may own fewer than the fleet)
  int cheapest_owned = 0;          // argmin of the curve, before the uncertainty rule
  bool rule_applied = false;       // uncertainty >= the rule's threshold
  int owned_at_low_end = 0;        // argmin with demand at (1 - uncertainty)
  // Expected monthly total by owned GPUs, ascending: every count up to a fleet of 64, beyond
  // that 64 evenly spaced counts plus every count next to the cheapest of them.
  std::vector<CurvePoint> curve;
  double monthly(int owned) const;  // from the curve; the nearest point when not evaluated
};
Decision decide(const TcoInputs& in);

// Steady GPU-hours per month at which owning the fleet costs what renting it does; nullopt
// when renting stays cheaper up to full use (or owning is cheaper even at zero use).
std::optional<double> break_even_gpu_hours(const TcoInputs& in);

// Months for the monthly saving (rent - owned running cost, burst included) to repay the price
// plus interest; resale is not counted. nullopt when owning saves nothing per month.
std::optional<double> payback_months(const MonthlyCost& owned, const MonthlyCost& rent, const Capex& c);

// Cumulative spend at month 0..horizon: renting, and owning `owned` GPUs (the price at month 0,
// or payments when financed; resale comes back at the last month).
std::vector<double> cumulative_cost(int owned, const TcoInputs& in);
// The same series for a month already priced (a replayed fleet's, tco_jobs.hpp).
std::vector<double> cumulative_cost(const MonthlyCost& m, const Capex& c, int horizon_months);

// A reserved commitment against paying as you go on the same offer: the offer of in.rent.offers
// with both prices whose commitment for the fleet costs least.
struct CommitmentCheck {
  Pricing term = Pricing::reserved_1y;
  int offer = -1;                   // index into in.rent.offers
  int term_months = 12;
  double committed_per_month = 0;   // fleet GPUs (whole instances), every hour
  double on_demand_per_month = 0;   // at the expected demand
  double break_even_utilisation = 0;  // of the committed GPUs, where the two cost the same
  bool pays = false;
};
std::optional<CommitmentCheck> commitment_check(const TcoInputs& in, Pricing term);

// How the verdict moves when one input is scaled.
enum class Factor { demand, power_price, resale, cloud_price };
inline constexpr int kFactorCount = 4;
const char* to_string(Factor f);
TcoInputs with_factor(TcoInputs in, Factor f, double multiplier);
struct Sensitivity {
  Factor factor = Factor::demand;
  double swing = 0.2;
  Decision low, high;                     // at 1 - swing and 1 + swing
  // Owning minus renting per month at each end, for the GPUs that end's verdict owns (for a
  // RENT verdict: what the base verdict owns, or the whole fleet when it owns none either), so
  // the sign agrees with the verdict: negative under BUY and HYBRID, positive under RENT
  // (unless the uncertainty rule overrode a cheaper owned option).
  double low_buy_minus_rent = 0, high_buy_minus_rent = 0;
  int low_compared_owned = 0, high_compared_owned = 0;
  std::optional<double> flip_down, flip_up;  // multiplier where the verdict first changes
};
Sensitivity sensitivity(const TcoInputs& in, const Decision& base, Factor f, double swing);

}  // namespace gpuplan
