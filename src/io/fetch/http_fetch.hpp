#pragma once
// One HTTP(S) GET into a file, through libcurl: TLS verified, connect and total timeouts, a
// size cap, conditional on a previous ETag / Last-Modified, proxies from the environment
// (http_proxy, https_proxy, no_proxy: libcurl's defaults, left on), progress on a terminal.
#include <cstdint>
#include <string>

namespace gpuplan::io {

struct HttpGet {
  std::string url;                   // http:// or https:// only (redirects too)
  std::string etag;                  // sent as If-None-Match when not empty
  std::string last_modified;         // sent as If-Modified-Since when not empty
  std::uint64_t max_bytes = 0;       // a body larger than this is refused (declared or received)
  long connect_timeout_ms = 15'000;  // TCP + TLS handshake
  long total_timeout_ms = 120'000;   // the whole transfer
  bool progress = false;             // draw a progress line on stderr (callers pass isatty)
  std::string label;                 // what the progress line names ("runpod")
  int body_fd = -1;                  // where a 200's body is written (the caller's temporary)
};

struct HttpOutcome {
  enum class Status { ok, not_modified, failed };
  Status status = Status::failed;
  std::string error;             // why, when failed: "HTTP 500", "timed out after 1 s", ...
  std::string etag;              // the response's validators, for the next conditional request
  std::string last_modified;
  std::uint64_t bytes = 0;       // body bytes written to body_fd
};

// Never throws for network or server trouble (that is an outcome); throws InputError when
// libcurl itself cannot be loaded.
HttpOutcome http_get(const HttpGet& request);

}  // namespace gpuplan::io
