// libcurl is opened with dlopen on first use, not linked, for the same reasons as libpq
// (src/store/libpq_loader.cpp) and one more: the gpuplan executable is a static PIE, and a
// static libcurl drags in OpenSSL, nghttp2, libssh2, Kerberos, LDAP, libpsl and zstd, whose
// static archives Debian does not all ship, so the default build would stop linking on a fresh
// Debian 12. Opened at run time, libcurl.so.4 (package libcurl4, which libcurl4-openssl-dev
// installs) brings its own dependencies, only `gpuplan prices update` pays for it, and a machine
// without it gets a clear message instead of a binary that will not start. curl/curl.h supplies
// the types and option numbers; the few entry points are looked up by name.
#include "io/fetch/http_fetch.hpp"

// The protocol lists fall back to the bitmask options a libcurl before 7.85 (no *_STR) needs.
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <string>

#include "gpuplan/error.hpp"
#include "io/text/files.hpp"

namespace gpuplan::io {
namespace {

struct Curl {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  void (*easy_cleanup)(CURL*);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

template <class F>
void bind(void* lib, F& f, const char* name) {
  void* sym = ::dlsym(lib, name);
  if (!sym) throw InputError({"libcurl.so.4", 0, 0}, "", std::string("libcurl has no ") + name + ": too old a libcurl");
  f = reinterpret_cast<F>(sym);
}

const Curl& curl() {
  static std::string why;
  static void* lib = [] {
    // Debian's libcurl4 (OpenSSL); the GnuTLS build has the same API under another name.
    for (const char* name : {"libcurl.so.4", "libcurl-gnutls.so.4"})
      if (void* h = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = ::dlerror();
    why = e ? e : "not found";
    return static_cast<void*>(nullptr);
  }();
  if (!lib)
    throw InputError({"libcurl.so.4", 0, 0}, "",
                     "downloading prices needs libcurl (Debian/Ubuntu: apt install libcurl4): " + why);
  static const Curl c = [] {
    Curl k{};
    bind(lib, k.global_init, "curl_global_init");
    bind(lib, k.easy_init, "curl_easy_init");
    bind(lib, k.easy_setopt, "curl_easy_setopt");
    bind(lib, k.easy_perform, "curl_easy_perform");
    bind(lib, k.easy_getinfo, "curl_easy_getinfo");
    bind(lib, k.easy_strerror, "curl_easy_strerror");
    bind(lib, k.easy_cleanup, "curl_easy_cleanup");
    bind(lib, k.slist_append, "curl_slist_append");
    bind(lib, k.slist_free_all, "curl_slist_free_all");
    k.global_init(CURL_GLOBAL_DEFAULT);
    return k;
  }();
  return c;
}

struct Transfer {
  const HttpGet* req = nullptr;
  std::uint64_t bytes = 0;
  bool oversized = false;
  bool write_failed = false;
  std::string etag, last_modified;
  bool drew_progress = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t len = size * n;
  if (t->bytes + len > t->req->max_bytes) {
    t->oversized = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  if (!write_all(t->req->body_fd, data, len)) {
    t->write_failed = true;
    return 0;
  }
  t->bytes += len;
  return len;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// Keeps the final response's validators: a redirect's own headers are dropped at each status line.
size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) t->etag.clear(), t->last_modified.clear();
  const auto colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string value = trimmed(line.substr(colon + 1));
  if (value.size() > 512) return size * n;  // validators are short; a huge one is not kept
  if (name == "etag") t->etag = value;
  if (name == "last-modified") t->last_modified = value;
  return size * n;
}

int on_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (now <= 0) return 0;
  const double mib = 1024.0 * 1024.0;
  if (total > 0)
    std::fprintf(stderr, "\r%s: %.1f / %.1f MiB ", t->req->label.c_str(), now / mib, total / mib);
  else
    std::fprintf(stderr, "\r%s: %.1f MiB ", t->req->label.c_str(), now / mib);
  t->drew_progress = true;
  return 0;
}

void set_options(const Curl& c, CURL* h, const HttpGet& req, Transfer& t, curl_slist* headers) {
  c.easy_setopt(h, CURLOPT_URL, req.url.c_str());
  // Only the web: no file://, no scp://, ldap:// or gopher:// reachable by a redirect.
  if (c.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
    c.easy_setopt(h, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  if (c.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK)
    c.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  c.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  c.easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
  c.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);  // libcurl's defaults, stated so no one turns them off
  c.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  c.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, req.connect_timeout_ms);
  c.easy_setopt(h, CURLOPT_TIMEOUT_MS, req.total_timeout_ms);
  c.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(req.max_bytes));
  c.easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // gzip on the wire; the cap counts decoded bytes
  c.easy_setopt(h, CURLOPT_USERAGENT, "gpuplan (prices update)");
  c.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  c.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  c.easy_setopt(h, CURLOPT_WRITEDATA, &t);
  c.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  c.easy_setopt(h, CURLOPT_HEADERDATA, &t);
  // No CURLOPT_PROXY or CURLOPT_NOPROXY: libcurl then reads http_proxy, https_proxy and no_proxy.
  if (req.progress) {
    c.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    c.easy_setopt(h, CURLOPT_XFERINFODATA, &t);
    c.easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  }
}

std::string seconds(long ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", ms / 1000.0);
  return buf;
}

std::string failure_text(const Curl& c, CURLcode rc, const HttpGet& req, const Transfer& t) {
  if (t.oversized || rc == CURLE_FILESIZE_EXCEEDED)
    return "larger than the " + std::to_string(req.max_bytes) + "-byte limit (--max-bytes)";
  if (t.write_failed) return "writing the download to the cache failed";
  if (rc == CURLE_OPERATION_TIMEDOUT)
    return "timed out (limits: connect " + seconds(req.connect_timeout_ms) + ", total " + seconds(req.total_timeout_ms) +
           "; --connect-timeout, --timeout)";
  if (rc == CURLE_PARTIAL_FILE) return "the download was cut short (fewer bytes than the server announced)";
  return c.easy_strerror(rc);
}

}  // namespace

HttpOutcome http_get(const HttpGet& req) {
  const Curl& c = curl();
  HttpOutcome out;
  CURL* h = c.easy_init();
  if (!h) {
    out.error = "libcurl could not start a transfer";
    return out;
  }
  curl_slist* headers = nullptr;
  if (!req.etag.empty()) headers = c.slist_append(headers, ("If-None-Match: " + req.etag).c_str());
  if (!req.last_modified.empty()) headers = c.slist_append(headers, ("If-Modified-Since: " + req.last_modified).c_str());
  Transfer t;
  t.req = &req;
  set_options(c, h, req, t, headers);
  const CURLcode rc = c.easy_perform(h);
  long code = 0;
  c.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  c.easy_cleanup(h);
  c.slist_free_all(headers);
  if (t.drew_progress) std::fprintf(stderr, "\r\033[K");
  out.bytes = t.bytes;
  out.etag = t.etag;
  out.last_modified = t.last_modified;
  if (rc != CURLE_OK) out.error = failure_text(c, rc, req, t);
  else if (code == 304) out.status = HttpOutcome::Status::not_modified;
  else if (code == 200) out.status = HttpOutcome::Status::ok;
  else out.error = "HTTP " + std::to_string(code);
  return out;
}

}  // namespace gpuplan::io
