#pragma once
// The input pipeline a training run needs (seed 000: "fix the data pipeline before buying
// compute"): the tokens a second the GPUs consume at the estimated speed, the storage read rate
// that takes, and the CPU cores that must tokenise and pack it on the fly; when storage or the
// CPUs cannot keep up, the pipeline bounds the run and the step stretches to its pace. Pure.
#include <optional>

#include "gpuplan/catalog.hpp"

namespace gpuplan {

// Tokens one CPU core tokenises per second. source (measured, tools/tokenizer_bench.md):
// tiktoken 1.0 (the Rust BPE core built to WASM, run under Node 20) with cl100k_base on English
// prose (seeds 000-003 and README.md in 4 KB documents, 20 passes, 2.1 MB), one core of a
// shared AMD EPYC: 112,000-116,000 tokens/s (0.43-0.44 MB/s) over two runs. A floor, not a
// ceiling: native builds and idle cores run faster; --tokenize-rate overrides it.
inline constexpr double kTokenizerTokensPerCoreSecond = 1.1e5;
// Bytes of raw English text per token in the same measurement (2,123,020 bytes, 553,440 tokens).
inline constexpr double kRawTextBytesPerToken = 3.84;

struct PipelineSpec {
  std::optional<double> storage_bytes_per_second;  // --storage-bandwidth, all instances together
  std::optional<int> cpu_cores;                    // --cpu-cores tokenising and packing on the fly (all instances)
  bool pretokenised = false;                       // --pretokenized: storage holds token ids, nothing to tokenise
  double tokenizer_tokens_per_core_second = kTokenizerTokensPerCoreSecond;
};

enum class PipelineBound { none, storage, tokenisation };
const char* to_string(PipelineBound b);  // "", "storage", "tokenisation"

struct PipelineFigures {
  double tokens_per_second = 0;          // useful tokens the GPUs consume at the estimated speed
  double bytes_per_token = 0;            // as stored: raw text, or 2/4-byte token ids
  double storage_bytes_per_second = 0;   // needed
  std::optional<double> storage_limit;   // bytes/s available: --storage-bandwidth, else the nodes' network
  bool storage_from_network = false;     // the limit is the nodes' network (the sheet's, else --network)
  double cpu_cores_needed = 0;           // to tokenise that (0 when pre-tokenised)
  std::optional<double> tokenise_limit;  // tokens/s the --cpu-cores sustain
  double fed_tokens_per_second = 0;      // what the pipeline delivers (== tokens_per_second when it keeps up)
  PipelineBound bound = PipelineBound::none;
  double slowdown = 1;                   // step time x this when bound
};

// `tokens_per_second`: useful tokens at the GPUs' estimated speed; `network_bytes_per_second`: what
// the job's nodes together read over their network (nullopt when no network is known). Remote
// storage is read over it, so without --storage-bandwidth it bounds the read rate.
PipelineFigures input_pipeline(double tokens_per_second, const PipelineSpec& p, std::optional<double> network_bytes_per_second,
                               int vocab_size);

}  // namespace gpuplan
