#include "gpuplan/input_pipeline.hpp"

#include <algorithm>

namespace gpuplan {

const char* to_string(PipelineBound b) {
  switch (b) {
    case PipelineBound::none: return "";
    case PipelineBound::storage: return "storage";
    case PipelineBound::tokenisation: return "tokenisation";
  }
  return "?";
}

PipelineFigures input_pipeline(double tokens_per_second, const PipelineSpec& p, std::optional<double> network_bytes_per_second,
                               int vocab_size) {
  PipelineFigures f;
  f.tokens_per_second = std::max(0.0, tokens_per_second);
  // Token ids fit 2 bytes under a 65,536-token vocabulary, else 4 (uint16 / uint32 shards).
  f.bytes_per_token = p.pretokenised ? (vocab_size > 0 && vocab_size <= 65536 ? 2.0 : 4.0) : kRawTextBytesPerToken;
  f.storage_bytes_per_second = f.tokens_per_second * f.bytes_per_token;
  if (p.storage_bytes_per_second) f.storage_limit = *p.storage_bytes_per_second;
  else if (network_bytes_per_second && *network_bytes_per_second > 0) {
    // Remote storage is read over the nodes' network.
    f.storage_limit = *network_bytes_per_second;
    f.storage_from_network = true;
  }
  if (!p.pretokenised) f.cpu_cores_needed = f.tokens_per_second / std::max(1.0, p.tokenizer_tokens_per_core_second);
  if (!p.pretokenised && p.cpu_cores) f.tokenise_limit = *p.cpu_cores * p.tokenizer_tokens_per_core_second;
  f.fed_tokens_per_second = f.tokens_per_second;
  if (f.storage_limit && *f.storage_limit / f.bytes_per_token < f.fed_tokens_per_second) {
    f.fed_tokens_per_second = *f.storage_limit / f.bytes_per_token;
    f.bound = PipelineBound::storage;
  }
  if (f.tokenise_limit && *f.tokenise_limit < f.fed_tokens_per_second) {
    f.fed_tokens_per_second = *f.tokenise_limit;
    f.bound = PipelineBound::tokenisation;
  }
  if (f.bound != PipelineBound::none && f.fed_tokens_per_second > 0) f.slowdown = f.tokens_per_second / f.fed_tokens_per_second;
  return f;
}

}  // namespace gpuplan
