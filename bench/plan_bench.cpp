// Speed of the plan search: configurations per second on one core (median of several runs),
// and the wall time of a full search, on the shipped catalogs and on a large SkyPilot catalog
// built from the published Lambda sheet repeated over many regions.
// Usage: plan_bench [REPEATS] [LAMBDA_VMS_CSV]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpuplan/plan.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/text/files.hpp"

using namespace gpuplan;

namespace {

PlanInputs inputs(const Catalog& c) {
  PlanInputs in;
  in.model = *c.find_model("llama-3.1-8b").found;
  in.params = count_params(in.model);
  in.base.seq_len = 2048;
  in.base.lora_rank = 16;
  in.global_batch = 64;
  in.tokens = 1e9;
  in.deadline_seconds = 3 * 86400.0;
  in.run.bill.preemptions_per_hour = 0.05;
  for (const Provider& p : c.providers)
    for (const Offer& o : p.offers) {
      const auto g = c.find_gpu(o.gpu);
      const auto rate = c.fx.convert(1.0, p.currency, "USD");
      if (g.found && rate) in.offers.push_back({&o, &p, g.found, *rate});
    }
  return in;
}

struct Run {
  double seconds;
  PlanResult result;
};

Run time_search(const PlanInputs& in, const PlanSpace& space) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanResult r = search_plans(in, space);
  const auto t1 = std::chrono::steady_clock::now();
  return {std::chrono::duration<double>(t1 - t0).count(), std::move(r)};
}

void report(const char* label, const Catalog& c, int repeats) {
  const PlanInputs in = inputs(c);
  const PlanSpace space;
  std::vector<double> secs;
  PlanResult last;
  for (int i = 0; i < repeats; ++i) {
    Run run = time_search(in, space);
    secs.push_back(run.seconds);
    last = std::move(run.result);
  }
  std::sort(secs.begin(), secs.end());
  const double median = secs[secs.size() / 2];
  std::printf("%-34s offers %6zu  considered %10llu  scored %10llu  full plan median %8.3f s (min %.3f, max %.3f)\n", label,
              in.offers.size(), static_cast<unsigned long long>(last.considered), static_cast<unsigned long long>(last.evaluated),
              median, secs.front(), secs.back());
  std::printf("%-34s %.2f M configurations/s considered, %.2f M/s scored (one core, median of %d)\n", "",
              last.considered / median / 1e6, last.evaluated / median / 1e6, repeats);
  if (!last.best.empty())
    std::printf("%-34s best: %s on %s, cost %.2f USD, %.1f h\n", "", to_string(space.methods[last.best[0].method]),
                in.offers[static_cast<std::size_t>(last.best[0].offer)].offer->key().c_str(), last.best[0].cost,
                last.best[0].wall_seconds / 3600);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const Catalog shipped = io::load_shipped_catalog();
  report("shipped catalogs", shipped, repeats);
  if (argc > 2) {
    // A large imported catalog: the Lambda sheet's rows over 50x the regions.
    const std::string text = io::read_file(argv[2]);
    std::string big = text.substr(0, text.find('\n') + 1);
    const std::string rows = text.substr(text.find('\n') + 1);
    for (int copy = 0; copy < 50; ++copy) {
      std::string r = rows;
      for (std::size_t pos = 0; (pos = r.find(",us-", pos)) != std::string::npos; pos += 4) r.replace(pos, 4, ",x" + std::to_string(copy) + "-");
      big += r;
    }
    auto load = io::parse_skypilot_csv(big, "lambda-x50.csv", shipped);
    if (!load.errors.empty()) {
      std::fprintf(stderr, "plan_bench: %s\n", load.errors.front().what());
      return 2;
    }
    Catalog c = shipped;
    c.merge(std::move(load.catalog));
    report("shipped + SkyPilot lambda x50", c, repeats);
  }
  return 0;
}
