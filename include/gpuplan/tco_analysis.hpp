#pragma once
// Everything buy-vs-rent reports, decided once: the verdict and the options beside it (rent,
// buy the fleet, the partial/hybrid count, spot, reserved commitments), break-even, payback,
// sensitivity with the verdict at each flip, the hybrid curve's sampled rows and the
// cumulative series. Pure; money in the caller's currency (see tco.hpp).
#include <optional>
#include <utility>
#include <vector>

#include "gpuplan/tco.hpp"

namespace gpuplan {

// A reserved term and the offers it is checked on.
using CommitmentOffers = std::vector<std::pair<Pricing, std::vector<RentOffer>>>;

struct TcoCommitment {
  CommitmentCheck check;
  const Offer* offer = nullptr;
};

struct TcoSensitivityRow {
  Sensitivity s;
  std::optional<Verdict> flip_down_verdict, flip_up_verdict;  // the verdict past each flip
};

struct TcoCurveRow {
  CurvePoint point;
  MonthlyCost cost;
  double owned_use = 0;       // owned GPU-hours / (owned GPUs x a month)
};

struct TcoAnalysis {
  Decision decision;
  MonthlyCost rent, buy, choice;      // rent all, own the fleet, what the verdict does
  // The partial option shown beside renting and owning all: the verdict's own count when it owns
  // some but not all, else the cheapest feasible count in between. A hybrid when it rents.
  std::optional<int> partial_owned;
  std::optional<MonthlyCost> partial;
  bool partial_rents = false;
  std::optional<MonthlyCost> spot;    // renting all on spot, when offered and feasible
  const Offer* spot_offer = nullptr;  // the spot offer that carried most of it
  std::vector<TcoCommitment> commitments;
  std::optional<double> break_even_gpu_hours;
  int payback_owned = 0;              // the verdict's count, or the fleet when it rents
  std::optional<double> payback_months;
  std::vector<TcoSensitivityRow> sensitivity;  // demand, power price, resale, cloud price
  std::vector<TcoCurveRow> curve;     // at most ~17 rows, with the verdict's and the cheapest count
  std::vector<double> cumulative_rent, cumulative_buy, cumulative_partial;
};

TcoAnalysis analyse_tco(const TcoInputs& in, const RentTerms& spot, const CommitmentOffers& commitments,
                        double sensitivity_swing);

}  // namespace gpuplan
