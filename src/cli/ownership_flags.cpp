#include "cli/ownership_flags.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "cli/common.hpp"
#include "cli/flag_ranges.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/tco_defaults.hpp"
#include "gpuplan/tco_purchase.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace td = tco_defaults;
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "3y", "2.5y", "18mo", "36 months": a whole number of months, at least one.
int horizon_months(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '-')) ++i;
  const std::string number = text.substr(0, i);
  std::string unit = lower(text.substr(i));
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  auto n = parse_count(number);
  if (number.empty() || !n) bad_flag("--horizon", "expected a horizon such as 3y or 18mo, got \"" + text + "\"");
  double months = 0;
  if (unit == "y" || unit == "yr" || unit == "yrs" || unit == "year" || unit == "years") months = *n.value * 12;
  else if (unit == "mo" || unit == "month" || unit == "months") months = *n.value;
  else if (unit == "m") bad_flag("--horizon", "\"m\" is ambiguous: write 18mo for months (or 1.5y)");
  else bad_flag("--horizon", "expected a horizon such as 3y or 18mo, got \"" + text + "\" (units: y, mo)");
  if (!(months > 0)) bad_flag("--horizon", "must be longer than zero, got \"" + text + "\"");
  if (std::fabs(months - std::round(months)) > 1e-9) bad_flag("--horizon", "must be a whole number of months, got \"" + text + "\"");
  if (months > 240) bad_flag("--horizon", "at most 20y, got \"" + text + "\"");
  return static_cast<int>(std::lround(months));
}
// How one hardware line is bought: with no tax modelled (the US list prices), or, where the
// country has GST figures, imported (duty and IGST on the customs value) or bought at home with
// GST inside or on top of the quote. `hs`/`duty` are the GPU's tariff flags ("" for the rest).
io::PurchaseLine purchase_line(const std::string& what, const std::string& basis, double price, bool given, const std::string& hs,
                               const std::string& duty, const OwnershipFlags& f, const CountryBuyDefaults& cd, const RunSettings& run) {
  PurchaseTerms t;
  t.price = price;
  io::PurchaseLine line{what, basis, "no tax added", {}};
  if (cd.hardware_gst) {
    const std::string mode = f.purchase.empty() ? (given ? "incl-gst" : "import") : lower(f.purchase);
    t.gst_rate = cd.hardware_gst->value;
    if (mode == "incl-gst") {
      t.price_includes_gst = true;
      line.terms = "GST in the price";
    } else if (mode == "excl-gst") {
      line.terms = "GST on top";
    } else if (mode == "import") {
      const std::string code = hs.empty() ? "8471" : hs;
      std::optional<ImportDuty> d = import_line(cd, code);
      if (!duty.empty()) d = ImportDuty{code, fraction_flag("--customs-duty", duty, 0.0, 1.5, "20%"), cd.import_sws_share_of_duty};
      if (!d)
        bad_flag("--customs-duty", "no sourced basic customs duty for HS " + code + " in " + cd.country +
                                       " (sourced: 8473 30 and 8471, both nil): pass --customs-duty RATE, e.g. 20%");
      t.import = *d;
      line.terms = "import " + d->hs_code + " (BCD " + num(d->basic * 100, 1) + "%)";
    } else {
      bad_flag("--purchase", "expected import, incl-gst or excl-gst, got \"" + f.purchase + "\"");
    }
  }
  line.cost = purchase_cost(t, run.spec.bill.tax_basis, run.spec.bill.input_tax_credit);
  return line;
}

// The horizon, the hardware's price and the build it sits in, taxed and imported as the
// buyer's country does (src/core/tco_purchase.cpp).
void read_hardware(const OwnershipFlags& f, const Gpu& gpu, const RunSettings& run, Ownership& s) {
  const std::string& cur = run.currency;
  auto usd = [&](double v) { return to_display(v, "USD", run, SourceLocation{}); };
  const bool rack = gpu.form == GpuForm::datacentre;
  OwnedTerms& o = s.terms;
  io::PurchaseReport& p = s.purchase;
  const CountryBuyDefaults cd = country_buy_defaults(p.country, rack);
  const std::string converted = "US x FX (!)";
  s.horizon_months = horizon_months(f.horizon.empty() ? "3y" : f.horizon);
  double list = 0;
  std::string basis = "--gpu-price";
  if (!f.gpu_price.empty()) {
    list = money_flag("--gpu-price", f.gpu_price, {"gpu"}, run);
    if (!(list > 0)) bad_flag("--gpu-price", "must be positive");
  } else if (gpu.price_usd) {
    list = usd(*gpu.price_usd);
    basis = cd.street_prices_sourced ? "catalog list" : "US list x FX (!)";
    s.defaults.push_back({io::OwnershipDefault::gpu_list_price, list, cur, "--gpu-price", gpu.id, !cd.street_prices_sourced, 0});
    if (!cd.street_prices_sourced) p.warnings.push_back({io::StandInFigure::gpu_price, p.country, gpu.id, *gpu.price_usd, "USD", list, cur});
  } else {
    bad_flag("--gpu-price", gpu.id + " has no purchase price in the catalog: pass --gpu-price (per GPU, e.g. --gpu-price 25000)");
  }
  p.lines.push_back(purchase_line("GPU", basis, list, !f.gpu_price.empty(), f.hs_code.empty() ? "8473 30" : f.hs_code, f.customs_duty, f, cd, run));
  o.gpu_price = p.lines.back().cost.total;
  o.gpus_per_build = rack ? td::kGpusPerBuildDatacentre : td::kGpusPerBuildConsumer;
  if (!f.gpus_per_build.empty()) {
    auto g = parse_int(f.gpus_per_build, 1, 64);
    if (!g) bad_flag("--gpus-per-build", g.error);
    o.gpus_per_build = static_cast<int>(*g.value);
  }
  double rest = 0;
  basis = "--rest-of-machine";
  if (!f.rest_of_machine.empty()) {
    rest = money_flag("--rest-of-machine", f.rest_of_machine, {"build"}, run);
  } else if (rack) {
    rest = td::kRestOfMachineDatacentreShare * o.gpus_per_build * p.lines.front().cost.pre_tax;  // of the GPUs before tax
    basis = "12.5% of GPUs";
    s.defaults.push_back({io::OwnershipDefault::rest_of_machine_rack, rest, cur, "--rest-of-machine", "", false, o.gpus_per_build});
    s.notes.push_back({io::OwnershipNote::rack_rest_network_only, ""});
  } else {
    rest = usd(td::kRestOfMachineConsumerUsd);
    basis = p.country == "US" ? "desk-side parts" : converted;
    s.defaults.push_back({io::OwnershipDefault::rest_of_machine_desk, rest, cur, "--rest-of-machine", "", false, o.gpus_per_build});
    if (p.country != "US") p.warnings.push_back({io::StandInFigure::desk_build, p.country, "", td::kRestOfMachineConsumerUsd, "USD", rest, cur});
  }
  p.lines.push_back(purchase_line("rest of build", basis, rest, !f.rest_of_machine.empty(), "", "", f, cd, run));
  o.rest_of_machine_per_build = p.lines.back().cost.total;
  if (cd.hardware_gst) {
    p.gst_rate = cd.hardware_gst->value;
    p.sources.push_back("GST: " + cd.hardware_gst->source);
    p.sources.push_back("import duty: " + cd.import_source);
    if (run.spec.bill.input_tax_credit)
      s.notes.push_back({io::OwnershipNote::input_tax_credit, ""});
  }
}

// Power, upkeep, resale, financing, colocation and engineer time.
void read_running_costs(const OwnershipFlags& f, const Gpu& gpu, const RunSettings& run, Ownership& s) {
  const std::string& cur = run.currency;
  auto usd = [&](double v) { return to_display(v, "USD", run, SourceLocation{}); };
  const bool rack = gpu.form == GpuForm::datacentre;
  OwnedTerms& o = s.terms;
  o.tdp_watts = gpu.tdp_watts;
  io::PurchaseReport& p = s.purchase;
  if (!f.power_price.empty()) o.power_price_per_kwh = in_flag_range("--power-price", money_flag("--power-price", f.power_price, {"kwh"}, run));
  else {
    // The buyer's country's tariff in its own currency (India: MERC's INR figure, not a
    // converted US one); a country without one gets the US figure, with a warning.
    const SourcedValue pw = country_buy_defaults(p.country, rack).power_price_per_kwh;
    o.power_price_per_kwh = to_display(pw.value, pw.currency, run, SourceLocation{});
    s.defaults.push_back({io::OwnershipDefault::power_price, o.power_price_per_kwh, cur, "--power-price", "", false, 0});
    p.sources.insert(p.sources.begin(), "power: " + pw.source);
    if (!pw.converted_from.empty())
      p.warnings.push_back({io::StandInFigure::power_price, p.country, "", pw.value, pw.currency, o.power_price_per_kwh, cur});
    const std::string note = country_buy_defaults(p.country, rack).power_note;
    if (!note.empty()) s.notes.push_back({io::OwnershipNote::power_tariff, note});
  }
  // A share or ratio flag, or its default (recorded as used).
  auto fraction_or = [&](const std::string& text, const char* flag, double min, double max, const char* example, double dflt,
                         io::OwnershipDefault what) {
    if (!text.empty()) return fraction_flag(flag, text, min, max, example);
    const bool ratio = what == io::OwnershipDefault::load_factor || what == io::OwnershipDefault::pue;
    s.defaults.push_back({what, dflt, ratio ? "ratio" : "share", flag, "", false, 0});
    return dflt;
  };
  using D = io::OwnershipDefault;
  o.load_factor = fraction_or(f.load_factor, "--load-factor", 0.01, 5.0, "1.2", rack ? td::kLoadFactorDatacentre : td::kLoadFactorConsumer,
                              D::load_factor);
  o.idle_power_share = fraction_or(f.idle_power, "--idle-power", 0.0, 1.0, "10%", td::kIdlePowerShare, D::idle_power);
  o.pue = fraction_or(f.pue, "--pue", 1.0, 3.0, "1.4", rack ? td::kPueDatacentre : td::kPueConsumer, D::pue);
  o.maintenance_per_year = fraction_or(f.maintenance, "--maintenance", 0.0, 1.0, "8%", td::kMaintenancePerYear, D::maintenance);
  o.failures_per_gpu_year = fraction_or(f.failure_rate, "--failure-rate", 0.0, 1.0, "5%", td::kFailuresPerGpuYear, D::failure_rate);
  o.resale_kept_per_year = fraction_or(f.resale, "--resale", 0.0, 1.5, "85%",
                                       rack ? td::kResaleKeptPerYearDatacentre : td::kResaleKeptPerYearConsumer, D::resale);
  o.financing_per_year = fraction_or(f.financing, "--financing", 0.0, 1.0, "9%", td::kFinancingPerYear, D::financing);
  if (!f.colo.empty()) o.colo_per_kw_month = money_flag("--colo", f.colo, {"kw", "kw-month", "kw/month"}, run);
  else {
    o.colo_per_kw_month = usd(rack ? td::kColoDatacentreUsdPerKwMonth : td::kColoConsumerUsdPerKwMonth);
    if (o.colo_per_kw_month > 0) s.defaults.push_back({io::OwnershipDefault::colo, o.colo_per_kw_month, cur, "--colo", "", false, 0});
    if (o.colo_per_kw_month > 0 && p.country != "US")
      p.warnings.push_back({io::StandInFigure::colo, p.country, "", td::kColoDatacentreUsdPerKwMonth, "USD", o.colo_per_kw_month, cur});
  }
  if (!f.ops_hours.empty()) {
    auto h = parse_count(f.ops_hours);
    if (!h) bad_flag("--ops-hours-per-month", h.error);
    if (*h.value > td::kHoursPerMonth) bad_flag("--ops-hours-per-month", "more hours than a month has");
    o.ops_hours_per_month = *h.value;
    if (f.engineer_rate.empty() && o.ops_hours_per_month > 0) bad_flag("--ops-hours-per-month", "needs --engineer-rate (e.g. 80/h)");
  }
  if (!f.engineer_rate.empty()) o.engineer_rate_per_hour = money_flag("--engineer-rate", f.engineer_rate, {"h", "hr", "hour"}, run);
  s.ops_counted = o.ops_hours_per_month > 0 && o.engineer_rate_per_hour > 0;
  if (!s.ops_counted)
    s.notes.push_back({io::OwnershipNote::engineer_time_not_counted, ""});
}


}  // namespace

double fraction_flag(const std::string& flag, const std::string& text, double min, double max, const char* example) {
  auto v = parse_fraction(text);
  if (!v) bad_flag(flag, v.error);
  if (*v.value < min || *v.value > max) {
    const bool ratio = std::string(example).find('%') == std::string::npos;
    const std::string range = ratio ? num(min, 2) + " to " + num(max, 2) : num(min * 100, 0) + "% to " + num(max * 100, 0) + "%";
    bad_flag(flag, "expected " + range + " (e.g. " + example + "), got \"" + text + "\"");
  }
  return *v.value;
}

double money_flag(const std::string& flag, std::string text, const std::vector<std::string>& units, const RunSettings& run) {
  const auto slash = text.find('/');
  if (slash != std::string::npos) {
    const std::string unit = lower(text.substr(slash + 1));
    if (std::find(units.begin(), units.end(), unit) == units.end()) {
      std::string list;
      for (const auto& u : units) list += (list.empty() ? "" : ", ") + u;
      bad_flag(flag, "unknown unit \"" + text.substr(slash + 1) + "\" in \"" + text + "\" (expected " + list + ")");
    }
    text = text.substr(0, slash);
  }
  auto m = parse_money(text);
  if (!m) bad_flag(flag, m.error);
  if (m.value->amount < 0) bad_flag(flag, "must not be negative, got \"" + text + "\"");
  const std::string cur = m.value->currency.empty() ? run.currency : m.value->currency;
  auto v = run.fx.convert(m.value->amount, cur, run.currency);
  if (!v) bad_flag(flag, "no exchange rate from " + cur + " to " + run.currency + " (add --fx " + cur + ":" + run.currency + "=RATE)");
  return *v;
}

std::vector<std::string> OwnershipFlags::given() const {
  std::vector<std::string> out;
  const std::pair<const char*, const std::string*> flags[] = {
      {"--horizon", &horizon}, {"--gpu-price", &gpu_price}, {"--rest-of-machine", &rest_of_machine}, {"--gpus-per-build", &gpus_per_build},
      {"--power-price", &power_price}, {"--load-factor", &load_factor}, {"--idle-power", &idle_power}, {"--pue", &pue},
      {"--maintenance", &maintenance}, {"--failure-rate", &failure_rate}, {"--colo", &colo}, {"--ops-hours-per-month", &ops_hours},
      {"--engineer-rate", &engineer_rate}, {"--resale", &resale}, {"--financing", &financing}, {"--buyer-country", &buyer_country},
      {"--purchase", &purchase}, {"--hs-code", &hs_code}, {"--customs-duty", &customs_duty}};
  for (const auto& [flag, value] : flags)
    if (!value->empty()) out.push_back(flag);
  return out;
}

void add_ownership_options(CLI::App& cmd, OwnershipFlags& f) {
  cmd.add_option("--horizon", f.horizon, "How long the hardware is kept, e.g. 3y or 18mo: its price less resale is spread over it (default: 3y)");
  cmd.add_option("--gpu-price", f.gpu_price, "Purchase price per GPU, e.g. 1800 or 150000INR (default: the catalog's list price)");
  cmd.add_option("--rest-of-machine", f.rest_of_machine, "CPU, board, RAM, storage, PSU, chassis and network per build");
  cmd.add_option("--gpus-per-build", f.gpus_per_build, "GPUs one build holds (default: 4 desk-side, 8 data-centre)");
  cmd.add_option("--power-price", f.power_price, "Electricity, e.g. 0.12/kWh or 8INR/kWh");
  cmd.add_option("--load-factor", f.load_factor, "Wall power while busy as a multiple of TDP, e.g. 1.0 or 182%");
  cmd.add_option("--idle-power", f.idle_power, "Draw of an idle owned GPU as a share of TDP, e.g. 10%");
  cmd.add_option("--pue", f.pue, "Facility power over IT power, e.g. 1.4");
  cmd.add_option("--maintenance", f.maintenance, "Upkeep per year as a share of the hardware price, e.g. 8%");
  cmd.add_option("--failure-rate", f.failure_rate, "GPUs replaced per GPU-year at the purchase price, e.g. 5%");
  cmd.add_option("--colo", f.colo, "Colocation or rack fee per provisioned kW per month, e.g. 200/kW");
  cmd.add_option("--ops-hours-per-month", f.ops_hours, "Engineer hours a month on drivers, hardware and failed jobs");
  cmd.add_option("--engineer-rate", f.engineer_rate, "Cost of an engineer hour, e.g. 80/h");
  cmd.add_option("--resale", f.resale, "Share of the hardware's value kept per year, e.g. 85%");
  cmd.add_option("--financing", f.financing, "Annual interest when the hardware is financed, e.g. 9%");
  cmd.add_option("--buyer-country", f.buyer_country, "The buyer's country, ISO code: what is owed (IN: Indian power tariff, GST on rent and hardware, import duty; default: US)");
  cmd.add_option("--purchase", f.purchase, "How hardware is bought (--buyer-country IN): import | incl-gst | excl-gst (default: import at the list price, incl-gst for --gpu-price)");
  cmd.add_option("--hs-code", f.hs_code, "Customs tariff line of the GPU when imported, e.g. \"8473 30\" (default; 8471 also sourced)");
  cmd.add_option("--customs-duty", f.customs_duty, "Basic customs duty on the GPU when imported, e.g. 20% (default: the --hs-code's sourced rate)");
}

void read_buyer_country(const OwnershipFlags& f, io::PurchaseReport& p) {
  if (!f.buyer_country.empty()) {
    p.country = country_code_of(f.buyer_country);
    if (p.country.empty()) bad_flag("--buyer-country", "expected a two-letter ISO code such as IN, got \"" + f.buyer_country + "\"");
    p.country_from = "--buyer-country";
  } else {
    p.country = "US";
    p.country_from = "default";
  }
  const bool taxed = country_buy_defaults(p.country, false).hardware_gst.has_value();
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--purchase", &f.purchase}, {"--hs-code", &f.hs_code}, {"--customs-duty", &f.customs_duty}})
    if (!value->empty() && !taxed) bad_flag(flag, "hardware GST and import duty are modelled for --buyer-country IN only (buyer: " + p.country + ")");
}

void read_ownership(const OwnershipFlags& f, const Gpu& gpu, const RunSettings& run, Ownership& s) {
  read_hardware(f, gpu, run, s);
  read_running_costs(f, gpu, run, s);
}

}  // namespace gpuplan::cli
