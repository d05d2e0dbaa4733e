// Job histories as Slurm writes them (sacct --parsable2: steps, End Unknown for running jobs,
// gres/gpu=4 and gres/gpu:a100=4, "CANCELLED by UID", pending jobs) and as a plain CSV.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpuplan/demand.hpp"
#include "gpuplan/error.hpp"
#include "io/text/files.hpp"
#include "io/usage/job_log.hpp"

using namespace gpuplan;

namespace {

std::string fixture(const std::string& name) { return std::string(GPUPLAN_TEST_FIXTURES_DIR) + "/" + name; }

std::string error_of(const std::string& text) {
  try {
    io::parse_job_log(text, "jobs.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sacct --parsable2: steps skipped, running and pending jobs, both gres forms", "[demand][io]") {
  const io::JobLog log = io::load_job_log(fixture("sacct_jobs.txt"));
  CHECK(log.format == "sacct");
  CHECK(log.steps_skipped == 4);     // 1001.batch, 1001.extern, 1002.0, 1004.batch
  CHECK(log.pending_skipped == 1);   // 1006 never started
  CHECK(log.running == 1);           // 1004: End Unknown
  REQUIRE(log.jobs.size() == 5);     // 1001-1005 (1005 used no GPU)
  CHECK(log.jobs[0].gpus == 4);      // gres/gpu=4
  CHECK(log.jobs[1].gpus == 2);      // gres/gpu:a100=2 only
  CHECK(log.jobs[2].gpus == 2);      // gres/gpu=2 with gres/gpu:a100=2: not counted twice
  CHECK(log.jobs[1].state == JobState::failed);
  CHECK(log.jobs[4].state == JobState::cancelled);  // "CANCELLED by 1234"
  CHECK(log.jobs[4].gpus == 0);
  CHECK(log.jobs[3].state == JobState::running);
  CHECK(log.jobs[3].end == log.cutoff);  // runs to the last time in the log, 2026-03-04T00:00
  CHECK(log.jobs[0].team == "vision");
}

TEST_CASE("sacct and the CSV of the same jobs give the same demand", "[demand][io]") {
  const DemandSummary a = summarise_demand(io::load_job_log(fixture("sacct_jobs.txt")).jobs);
  const io::JobLog csv = io::load_job_log(fixture("jobs.csv"));
  CHECK(csv.format == "csv");
  const DemandSummary b = summarise_demand(csv.jobs);
  CHECK(a.gpu_hours == Approx(100));
  CHECK(b.gpu_hours == Approx(100));
  CHECK(a.peak_gpus == b.peak_gpus);
  CHECK(a.baseline_gpus == b.baseline_gpus);
  CHECK(*a.queue_p95_hours == Approx(*b.queue_p95_hours));
  CHECK(a.failure_rate == Approx(0.25 * 4 / 3));  // 1004 is still running: 1 failed of 3 finished
  CHECK(a.retry_rate == Approx(1));
}

TEST_CASE("malformed job rows name the file, line and field", "[demand][io]") {
  const std::string head = "JobID|Start|End|AllocTRES|State\n";
  CHECK(error_of(head + "1|2026-03-02T00:00:00|2026-03-01T00:00:00|gres/gpu=1|COMPLETED\n").find("jobs.txt:2:") != std::string::npos);
  CHECK(error_of(head + "1|2026-02-30T00:00:00|2026-03-01T00:00:00|gres/gpu=1|COMPLETED\n").find("field 'Start'") != std::string::npos);
  CHECK(error_of(head + "1|2026-03-02T00:00:00|2026-03-02T01:00:00|gres/gpu=x|COMPLETED\n").find("field 'AllocTRES'") !=
        std::string::npos);
  CHECK(error_of(head + "1|2026-03-02T00:00:00|2026-03-02T01:00:00\n").find("expected 5 fields") != std::string::npos);
  CHECK(error_of("JobID|Start|End|State\n").find("field 'alloctres'") != std::string::npos);
  CHECK(error_of("start,end,gpus\n2026-03-02T00:00:00,2026-03-02T01:00:00,-1\n").find("jobs.txt:2:") != std::string::npos);
  CHECK(error_of("").find("empty") != std::string::npos);
  CHECK(error_of(head + "1|2020-03-02T00:00:00|2026-03-02T01:00:00|gres/gpu=1|COMPLETED\n").find("longer than 400 days") !=
        std::string::npos);
  CHECK(error_of(head + "1|1990-03-02T00:00:00|Unknown|gres/gpu=1|RUNNING\n2|2026-03-02T00:00:00|2026-03-02T01:00:00|gres/gpu=1|COMPLETED\n")
            .find("more than 20 years") != std::string::npos);
  CHECK(io::looks_like_job_log("start,end,gpus\n"));
  CHECK_FALSE(io::looks_like_job_log("day,gpu_hours\n"));
}

TEST_CASE("a file is told to be a job log from its first line, as the whole text is", "[demand][job_log]") {
  for (const char* name : {"jobs.csv", "sacct_jobs.txt"}) {
    INFO(name);
    CHECK(io::file_looks_like_job_log(fixture(name)));
    CHECK(io::file_looks_like_job_log(fixture(name)) == io::looks_like_job_log(io::read_file(fixture(name))));
  }
  const auto path = std::filesystem::temp_directory_path() / ("gpuplan_jobhead_" + std::to_string(::getpid()) + ".csv");
  const auto write = [&](const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  };
  // Blank and comment lines before the header are skipped alike; a demand profile is not a log.
  CHECK(io::file_looks_like_job_log(write("\n# exported by hand\nstart,end,gpus\n")));
  CHECK_FALSE(io::file_looks_like_job_log(write("day,gpu_hours\n2026-03-01,40\n")));
  CHECK_FALSE(io::file_looks_like_job_log(write("")));
  std::filesystem::remove(path);
}
