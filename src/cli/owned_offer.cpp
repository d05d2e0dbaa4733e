#include "cli/owned_offer.hpp"

#include <algorithm>
#include <cctype>

#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

constexpr int kMaxOwnedGpus = 64;

// "rtx-4090" -> (rtx-4090, 1); "rtx-4090x2", "rtx-4090 x2", "rtx-4090-x2" -> (rtx-4090, 2). A
// name the catalog knows whole wins ("mi300x" is a GPU, not "mi300" times nothing).
std::pair<const Gpu*, int> owned_gpus(const Catalog& catalog, const std::string& text) {
  const auto whole = catalog.find_gpu(text);
  if (whole.found) return {whole.found, 1};
  const auto x = text.find_last_of("xX");
  if (x != std::string::npos && x + 1 < text.size() &&
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(x) + 1, text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    std::string name = text.substr(0, x);
    while (!name.empty() && (name.back() == ' ' || name.back() == '-')) name.pop_back();
    const auto part = catalog.find_gpu(name);
    if (part.found) {
      auto n = parse_int(text.substr(x + 1), 1, kMaxOwnedGpus);
      if (!n) bad_flag("--owned", "GPU count: " + n.error);
      return {part.found, static_cast<int>(*n.value)};
    }
  }
  bad_flag("--owned", lookup_failure("GPU", text, whole) + "; expected GPU[xN], e.g. rtx-4090 or rtx-4090x2");
}

void refuse_without_owned(const OwnedOfferFlags& f) {
  std::vector<std::string> given = f.own.given();
  if (!f.utilisation.empty()) given.insert(given.begin(), "--owned-utilization");
  if (f.marginal) given.insert(given.begin(), "--owned-marginal");
  if (!given.empty()) bad_flag(given.front(), "prices the owner's GPUs: give --owned GPU[xN] too (e.g. --owned rtx-4090)");
}

}  // namespace

void add_owned_offer_options(CLI::App& cmd, OwnedOfferFlags& f) {
  CLI::App& sec = option_section(cmd, "Owned GPUs (priced as buy-vs-rent prices owning)");
  sec.add_option("--owned", f.owned,
                 "Add your own GPUs as an offer, GPU[xN] (one machine of N GPUs, e.g. rtx-4090 or rtx-4090x2), priced at the owner's cost per GPU-hour");
  sec.add_option("--owned-utilization", f.utilisation,
                 "Share of a 730-hour month the owned GPUs are busy, e.g. 40%: the monthly cost is spread over those hours (needed with --owned)");
  sec.add_flag("--owned-marginal", f.marginal, "Price the owned GPUs at power and maintenance only (no purchase price): hardware already paid for");
  add_ownership_options(sec, f.own);
}

std::optional<OwnedOffer> build_owned_offer(const Context& ctx, const OwnedOfferFlags& f, const RunSettings& run) {
  if (f.owned.empty()) {
    refuse_without_owned(f);
    return std::nullopt;
  }
  if (run.spec.bill.tax_rate)
    bad_flag("--tax", "sets the tax of every bill, and with --owned the owner's own cost would be taxed too: leave --tax out (each sheet's own rate applies)");
  const auto [gpu, n] = owned_gpus(ctx.catalog(), f.owned);
  if (f.utilisation.empty())
    bad_flag("--owned-utilization", "--owned needs the share of a month the owned GPUs are busy, e.g. --owned-utilization 40%: "
                                    "their monthly cost is spread over those hours");
  OwnedOffer o;
  o.gpus = n;
  o.marginal = f.marginal;
  o.utilisation = fraction_flag("--owned-utilization", f.utilisation, 0.01, 1.0, "40%");
  o.ownership.purchase.basis = run.spec.bill.tax_basis;
  o.ownership.purchase.input_tax_credit = run.spec.bill.input_tax_credit;
  read_buyer_country(f.own, o.ownership.purchase);
  read_ownership(f.own, *gpu, run, o.ownership);
  o.month = owned_month(n, o.utilisation, o.ownership.terms, o.ownership.horizon_months);
  o.hour = *owned_hour_cost(o.month);  // utilisation >= 1%: some hours are served
  o.per_gpu_hour = o.marginal ? o.hour.marginal : o.hour.full;

  o.catalog.gpus.push_back(*gpu);
  o.catalog.fx = ctx.catalog().fx;
  Provider p;
  p.id = "owned";
  p.name = o.marginal ? "Owned GPUs (marginal cost)" : "Owned GPUs (owner's cost)";
  p.currency = run.currency;  // money_flag and the defaults are already in the display currency
  p.prices_as_of = run.today;
  p.source = "buy-vs-rent's owned cost per GPU-hour";
  p.billing_increment_seconds = 1;
  p.tax_rate = 0.0;  // GST and duty on the hardware are in its price already
  p.tax_basis = TaxBasis::exclusive;
  Offer off;
  off.id = gpu->id + "-x" + std::to_string(n);
  off.provider = p.id;
  off.gpu = gpu->id;
  off.gpus = n;
  off.region = "owned";
  // The owner pays the same per hour whatever pricing is asked; nothing preempts it.
  for (auto& price : off.per_gpu_hour) price = o.per_gpu_hour;
  off.spot_preemptions_per_hour = 0.0;
  p.offers.push_back(off);
  o.catalog.providers.push_back(std::move(p));
  return o;
}

bool add_owned_offer(OfferSet& set, const OwnedOffer& o, const ModelArch& m, const ParamCounts& pc, const Workload& w,
                     const RunSettings& run) {
  OfferFilter one_machine;
  one_machine.max_gpus = o.gpus;
  OfferSet mine = evaluate_offers(o.catalog, m, pc, w, run, one_machine);
  const bool priced = !mine.priced.empty();
  for (auto& p : mine.priced) set.priced.push_back(std::move(p));
  for (auto& p : mine.excluded) set.excluded.push_back(std::move(p));
  return priced;
}

PlanOffer owned_plan_offer(const OwnedOffer& o) { return PlanOffer{&o.offer(), &o.provider(), &o.gpu(), 1.0, 1}; }

void keep_owned_shown(std::vector<PricedOffer>& shown, const std::vector<PricedOffer>& all, const OwnedOffer& o) {
  auto mine = [&](const PricedOffer& p) { return p.offer == &o.offer(); };
  if (std::any_of(shown.begin(), shown.end(), mine)) return;
  const auto it = std::find_if(all.begin(), all.end(), mine);
  if (it != all.end()) shown.push_back(*it);
}

io::OwnedBlock owned_block(const OwnedOffer& o) {
  return io::OwnedBlock{.offer = o.offer().key(),
                        .gpu = o.gpu().id,
                        .currency = o.provider().currency,  // run.currency: the offer is priced in it
                        .gpus = o.gpus,
                        .utilization = o.utilisation,
                        .marginal = o.marginal,
                        .month = o.month,
                        .hour = o.hour,
                        .per_gpu_hour = o.per_gpu_hour,
                        .horizon_months = o.ownership.horizon_months,
                        .terms = o.ownership.terms,
                        .purchase = o.ownership.purchase,
                        .defaults = o.ownership.defaults,
                        .notes = o.ownership.notes};
}

}  // namespace gpuplan::cli
