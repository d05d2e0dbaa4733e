#include "cli/run_flags.hpp"

#include <algorithm>
#include <cmath>

#include "cli/common.hpp"
#include "cli/flag_ranges.hpp"
#include "cli/model_source.hpp"
#include "cli/node_flags.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {

namespace {

double count_flag(const std::string& flag, const std::string& text) {
  auto c = parse_count(text);
  if (!c) bad_flag(flag, c.error);
  if (!(*c.value > 0)) bad_flag(flag, "must be positive, got " + text);
  return *c.value;
}

double seconds_flag(const std::string& flag, const std::string& text) {
  auto s = parse_seconds(text);
  if (!s) bad_flag(flag, s.error);
  if (*s.value < 0) bad_flag(flag, "must not be negative");
  return *s.value;
}

double fraction_flag(const std::string& flag, const std::string& text, double max) {
  auto v = parse_fraction(text);
  if (!v) bad_flag(flag, v.error);
  if (*v.value < 0 || *v.value > max) bad_flag(flag, "expected 0% to " + std::to_string(static_cast<int>(max * 100)) + "%");
  return *v.value;
}

bool valid_currency(const std::string& c) {
  if (c.size() != 3) return false;
  for (char ch : c)
    if (ch < 'A' || ch > 'Z') return false;
  return true;
}

// The catalogs' dated table, then --fx overrides, stored against the table's base.
FxTable build_fx(const Catalog& catalog, const std::vector<std::string>& overrides) {
  FxTable fx = catalog.fx;
  for (const auto& spec : overrides) {
    const auto colon = spec.find(':'), eq = spec.find('=');
    if (colon == std::string::npos || eq == std::string::npos || eq < colon)
      bad_flag("--fx", "expected FROM:TO=RATE, e.g. USD:INR=83.2, got \"" + spec + "\"");
    const std::string from = spec.substr(0, colon), to = spec.substr(colon + 1, eq - colon - 1);
    if (!valid_currency(from) || !valid_currency(to)) bad_flag("--fx", "currencies are 3-letter ISO codes: \"" + spec + "\"");
    auto rate = parse_count(spec.substr(eq + 1));
    if (!rate || !(*rate.value > 0)) bad_flag("--fx", "the rate must be a positive number: \"" + spec + "\"");
    if (from == fx.base) fx.per_base[to] = *rate.value;
    else if (to == fx.base) fx.per_base[from] = 1.0 / *rate.value;
    else {
      auto from_base = fx.convert(1.0, fx.base, from);
      if (!from_base) bad_flag("--fx", "no rate from " + fx.base + " to " + from + " to anchor \"" + spec + "\"");
      fx.per_base[to] = *from_base * *rate.value;
    }
    fx.as_of = "--fx";
  }
  return fx;
}

// --budget in the display currency (or converted from the currency it names).
double budget_flag(const std::string& text, const RunSettings& s) {
  auto m = parse_money(text);
  if (!m) bad_flag("--budget", m.error);
  if (!(m.value->amount > 0)) bad_flag("--budget", "must be positive");
  const std::string cur = m.value->currency.empty() ? s.currency : m.value->currency;
  auto v = s.fx.convert(m.value->amount, cur, s.currency);
  if (!v) bad_flag("--budget", "no exchange rate from " + cur + " to " + s.currency);
  return *v;
}

// Pricing, tax, idle, start-up, spot terms and deadline.
RunInputs build_bill(const RunFlags& f) {
  RunInputs b;
  b.pricing = pick_enum<Pricing>("--pricing", f.pricing);
  if (!f.tax.empty()) b.tax_rate = fraction_flag("--tax", f.tax, 1.0);
  const auto basis = tax_basis_from_string(f.tax_basis);
  if (!basis) bad_choice("--tax-basis", f.tax_basis, "inclusive, exclusive");
  b.tax_basis = *basis;
  b.input_tax_credit = f.input_tax_credit;
  b.idle_fraction = fraction_flag("--idle", f.idle, 0.95);
  if (!f.startup.empty()) b.startup_seconds = seconds_flag("--startup", f.startup);
  if (!f.preemptions_per_hour.empty()) {
    auto p = parse_count(f.preemptions_per_hour);
    if (!p || *p.value < 0) bad_flag("--preemptions-per-hour", p ? "must not be negative" : p.error);
    b.preemptions_per_hour = *p.value;
  }
  if (!f.checkpoint_every.empty()) {
    b.checkpoint_every_seconds = seconds_flag("--checkpoint-every", f.checkpoint_every);
    if (*b.checkpoint_every_seconds <= 0) bad_flag("--checkpoint-every", "must be positive");
  }
  b.restart_seconds = seconds_flag("--restart-time", f.restart_time);
  if (f.max_restarts < 0) bad_flag("--max-restarts", "must not be negative");
  b.max_restarts = f.max_restarts;
  if (!f.deadline.empty()) {
    b.deadline_seconds = seconds_flag("--deadline", f.deadline);
    if (*b.deadline_seconds <= 0) bad_flag("--deadline", "must be positive");
  }
  return b;
}

void add_length_options(CLI::App& cmd, RunFlags& f) {
  cmd.add_option("--tokens", f.tokens, "Training tokens for the run, e.g. 2B (or generated tokens for inference)");
  cmd.add_option("--dataset-tokens", f.dataset_tokens, "Tokens in the dataset (with --epochs)");
  cmd.add_option("--epochs", f.epochs, "Passes over --dataset-tokens");
  cmd.add_option("--steps", f.steps, "Optimizer steps for the run (instead of --tokens)");
  cmd.add_option("--nodes", f.nodes, "Instances to spread the job over (compare: GPUs = nodes x the offer's GPUs)");
  cmd.add_option("--grad-accum", f.grad_accum, "Gradient-accumulation steps per optimizer step")->capture_default_str();
  cmd.add_option("--packing", f.packing, "on | off: off pads each sequence to --seq-len")->capture_default_str();
  cmd.add_option("--mean-sample-tokens", f.mean_sample_tokens, "Mean tokens per sample (padding waste when --packing off)");
  cmd.add_option("--mfu", f.mfu, "Model FLOPs utilisation, e.g. 45% (default: by GPU class, see README)");
}

void add_money_options(CLI::App& cmd, RunFlags& f) {
  add_bill_options(cmd, f, false);
  cmd.add_option("--deadline", f.deadline, "Wall-clock limit for the run, e.g. 3d");
  cmd.add_option("--budget", f.budget, "Spend limit for the run, e.g. 500 or 40000INR (in --currency unless named)");
}

void add_spot_options(CLI::App& cmd, RunFlags& f) {
  cmd.add_option("--preemptions-per-hour", f.preemptions_per_hour, "Spot preemption rate per instance (default: the offer's)");
  cmd.add_option("--checkpoint-every", f.checkpoint_every, "Checkpoint interval, e.g. 30m (default on spot: Young's optimum)");
  cmd.add_option("--checkpoint-write-speed", f.checkpoint_write_speed, "Checkpoint write bandwidth per instance, e.g. 1GB (per second)")
      ->capture_default_str();
  cmd.add_option("--restart-time", f.restart_time, "Relaunch and reload time after a preemption")->capture_default_str();
  cmd.add_option("--max-restarts", f.max_restarts, "Give up on spot past this many expected preemptions")->capture_default_str();
  cmd.add_option("--keep-checkpoints", f.keep_checkpoints, "Checkpoints kept in storage during the run")->capture_default_str();
}

void add_data_options(CLI::App& cmd, RunFlags& f) {
  cmd.add_option("--idle", f.idle, "Share of billed time doing no work (data loading, eval)")->capture_default_str();
  cmd.add_option("--startup", f.startup, "Billed start-up time per launch (default: the sheet's)");
  cmd.add_option("--dataset-size", f.dataset_size, "Dataset kept in storage during the run, e.g. 50GB")->capture_default_str();
  cmd.add_option("--storage-bandwidth", f.storage_bandwidth, "Training data read rate, all instances together, e.g. 500MB (per second; default: the nodes' network, the sheet's else --network)");
  cmd.add_option("--cpu-cores", f.cpu_cores, "CPU cores tokenising and packing training data on the fly (all instances)");
  cmd.add_flag("--pretokenized", f.pretokenized, "Training data is stored as token ids: nothing to tokenise");
  cmd.add_option("--tokenize-rate", f.tokenize_rate, "Tokens one CPU core tokenises per second (default: 110k, measured; README)");
  cmd.add_flag("--no-egress", f.no_egress, "Do not price copying the trained weights out");
}

}  // namespace

void add_bill_options(CLI::App& cmd, RunFlags& f, bool startup) {
  cmd.add_option("--pricing", f.pricing, "on-demand | spot | reserved-1y | reserved-3y")->capture_default_str();
  cmd.add_option("--tax", f.tax, "Tax on the bill, e.g. 18% (default: the sheet's own)");
  cmd.add_option("--stale-after", f.stale_after, "Flag sheets whose prices are older than this many days")->capture_default_str();
  cmd.add_option("--tax-basis", f.tax_basis, "inclusive | exclusive: compare every sheet with tax or without")->capture_default_str();
  cmd.add_flag("--input-tax-credit", f.input_tax_credit,
               "GST-registered business: GST (and reverse charge on foreign clouds) is recovered, cost is pre-tax");
  cmd.add_option("--currency", f.currency, "Show money in this currency (ISO code, e.g. INR); display only, never what is owed")
      ->capture_default_str();
  cmd.add_option("--fx", f.fx, "Exchange rate override, e.g. USD:INR=83.2 (repeatable)");
  if (startup) cmd.add_option("--startup", f.startup, "Billed start-up per launch (default: the sheet's)");
}

void add_run_options(CLI::App& command, RunFlags& f) {
  add_length_options(option_section(command, "Run length and speed"), f);
  add_money_options(option_section(command, "Prices, currency and limits"), f);
  add_spot_options(option_section(command, "Spot and checkpoints"), f);
  add_data_options(option_section(command, "Storage, data and overheads"), f);
  add_node_options(command, f.node_shape, f.network);
}

// --storage-bandwidth, --cpu-cores, --pretokenized, --tokenize-rate.
static PipelineSpec build_pipeline(const RunFlags& f) {
  PipelineSpec p;
  if (!f.storage_bandwidth.empty()) {
    std::string text = f.storage_bandwidth;
    if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.resize(text.size() - 2);
    auto b = parse_bytes(text, BareGUnit::gb);
    if (!b || *b.value == 0) bad_flag("--storage-bandwidth", b ? "must be positive" : b.error);
    p.storage_bytes_per_second = static_cast<double>(*b.value);
  }
  if (!f.cpu_cores.empty()) {
    auto c = parse_int(f.cpu_cores, 1, 1 << 20);
    if (!c) bad_flag("--cpu-cores", c.error);
    p.cpu_cores = static_cast<int>(*c.value);
  }
  if (f.pretokenized && p.cpu_cores) bad_flag("--cpu-cores", "--pretokenized data needs no tokenising: give one of the two");
  p.pretokenised = f.pretokenized;
  if (!f.tokenize_rate.empty()) {
    const double r = count_flag("--tokenize-rate", f.tokenize_rate);
    if (!(r > 0)) bad_flag("--tokenize-rate", "must be positive");
    p.tokenizer_tokens_per_core_second = r;
  }
  return p;
}

RunSettings build_run_settings(const Context& ctx, const RunFlags& f, const Workload& w) {
  RunSettings s;
  RunSpec& r = s.spec;
  const int work_flags = !f.tokens.empty() + !f.steps.empty() + !f.dataset_tokens.empty();
  if (work_flags > 1) bad_flag("--tokens", "give one of --tokens, --steps or --dataset-tokens with --epochs");
  if (!f.epochs.empty() && f.dataset_tokens.empty()) bad_flag("--epochs", "needs --dataset-tokens");
  if (!f.tokens.empty()) r.tokens = count_flag("--tokens", f.tokens);
  if (!f.steps.empty()) r.steps = std::ceil(count_flag("--steps", f.steps));
  if (!f.dataset_tokens.empty())
    r.tokens = count_flag("--dataset-tokens", f.dataset_tokens) * (f.epochs.empty() ? 1.0 : count_flag("--epochs", f.epochs));
  if (f.grad_accum < 1 || f.grad_accum > 1 << 20) bad_flag("--grad-accum", "expected 1 or more");
  r.grad_accum = f.grad_accum;
  if (f.nodes < 0 || f.nodes > 4096) bad_flag("--nodes", "expected 1 to 4096");
  if (f.nodes > 0) r.nodes = f.nodes;
  r.node_shape = build_node_shape(ctx.catalog(), f.node_shape, f.network);
  if (f.packing != "on" && f.packing != "off") bad_choice("--packing", f.packing, "on, off");
  if (f.packing == "off") {
    if (f.mean_sample_tokens.empty()) bad_flag("--packing", "off needs --mean-sample-tokens to size the padding");
    const double mean = count_flag("--mean-sample-tokens", f.mean_sample_tokens);
    r.padding_efficiency = std::min(1.0, mean / static_cast<double>(w.seq_len));
  } else if (!f.mean_sample_tokens.empty()) {
    ctx.warn("--mean-sample-tokens only matters with --packing off");
  }
  if (const Profile* p = ctx.profile()) r.time = apply_profile(*p, r.time);  // --mfu below wins
  if (!f.mfu.empty()) r.mfu = fraction_flag("--mfu", f.mfu, 1.0);
  if (r.mfu && *r.mfu <= 0) bad_flag("--mfu", "must be above 0%");
  if (r.mfu) in_flag_range("--mfu", *r.mfu);

  r.bill = build_bill(f);
  if (f.stale_after < 0 || f.stale_after > 36500) bad_flag("--stale-after", "expected 0 to 36500 days");
  s.stale_after_days = f.stale_after;
  s.today = today_utc();
  auto speed = parse_bytes(f.checkpoint_write_speed, BareGUnit::gb);
  if (!speed || *speed.value == 0) bad_flag("--checkpoint-write-speed", speed ? "must be positive" : speed.error);
  r.checkpoint_write_gbps = static_cast<double>(*speed.value) / 1e9;
  auto ds = parse_bytes(f.dataset_size, BareGUnit::gb);
  if (!ds) bad_flag("--dataset-size", ds.error);
  r.dataset_gb = static_cast<double>(*ds.value) / 1e9;
  if (f.keep_checkpoints < 0) bad_flag("--keep-checkpoints", "must not be negative");
  r.keep_checkpoints = f.keep_checkpoints;
  r.egress_final_weights = !f.no_egress;
  r.pipeline = build_pipeline(f);

  s.fx = build_fx(ctx.catalog(), f.fx);
  if (!valid_currency(f.currency)) bad_flag("--currency", "expected a 3-letter ISO code such as USD or INR, got \"" + f.currency + "\"");
  s.currency = f.currency;
  if (!s.fx.convert(1.0, "USD", s.currency) && s.currency != "USD")
    bad_flag("--currency", "no exchange rate for " + s.currency + " (add one with --fx USD:" + s.currency + "=RATE)");

  if (!f.budget.empty()) s.budget = budget_flag(f.budget, s);
  return s;
}

void add_offer_filter_options(CLI::App& command, OfferFlags& f, bool gpu_flag) {
  CLI::App& cmd = option_section(command, "Offers");
  cmd.add_option("--provider", f.providers, "Only this provider (repeatable)");
  if (gpu_flag) cmd.add_option("--gpu", f.gpus, "Only this GPU (repeatable)");
  cmd.add_option("--region", f.regions, "Only offers whose region contains this text or is in this country, e.g. india (repeatable)");
  cmd.add_option("--country", f.countries, "Only offers in this country, ISO code e.g. IN (repeatable)");
  cmd.add_option("--offer", f.offers, "Only this offer, as provider/offer (repeatable)");
  cmd.add_option("--max-gpus", f.max_gpus, "Only offers billing at most this many GPUs");
}

OfferFilter build_offer_filter(const OfferFlags& f, const Catalog& c) {
  OfferFilter filter;
  for (const auto& p : f.providers) {
    const auto l = c.find_provider(p);
    if (!l.found) bad_flag("--provider", lookup_failure("provider", p, l));
    filter.providers.push_back(l.found->id);
  }
  for (const auto& g : f.gpus) filter.gpus.push_back(resolve_gpu(c, g).id);
  for (const auto& o : f.offers) {
    const auto slash = o.find('/');
    if (slash == std::string::npos) bad_flag("--offer", "expected provider/offer, e.g. lambda/gpu-1x-h100-pcie, got \"" + o + "\"");
    const auto l = c.find_provider(o.substr(0, slash));
    if (!l.found) bad_flag("--offer", lookup_failure("provider", o.substr(0, slash), l));
    const std::string id = o.substr(slash + 1);
    if (std::none_of(l.found->offers.begin(), l.found->offers.end(), [&](const Offer& x) { return x.id == id; }))
      bad_flag("--offer", "provider " + l.found->id + " has no offer '" + id + "' (gpuplan providers show " + l.found->id + ")");
    filter.offers.push_back(l.found->id + "/" + id);
  }
  filter.regions = f.regions;
  for (const auto& k : f.countries)
    if (country_code_of(k).empty()) bad_flag("--country", "expected a two-letter ISO code such as IN, got \"" + k + "\"");
  filter.countries = f.countries;
  if (f.max_gpus < 0) bad_flag("--max-gpus", "must not be negative");
  filter.max_gpus = f.max_gpus;
  return filter;
}

}  // namespace gpuplan::cli
