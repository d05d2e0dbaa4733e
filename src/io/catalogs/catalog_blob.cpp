#include "io/catalogs/catalog_blob.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace gpuplan::io {
namespace {

// Bump when a field is added, removed or reordered: an old image is then refused, not misread.
constexpr std::uint32_t kMagic = 0x47504331;  // "GPC1"
constexpr std::uint32_t kVersion = 1;

// The one field list. `G` is a struct or its const form: the writer and the reader share it.
template <class V, class G>
std::enable_if_t<std::is_same_v<std::remove_const_t<G>, Gpu>> fields(V& v, G& g) {
  v(g.id), v(g.name), v(g.vendor), v(g.architecture), v(g.form), v(g.aliases), v(g.memory_bytes);
  v(g.usable_memory_bytes), v(g.memory_bandwidth_gbps), v(g.dense_tflops), v(g.tdp_watts);
  v(g.interconnect_kind), v(g.interconnect_gbps), v(g.ecc), v(g.price_usd), v(g.where);
}

template <class V, class M>
std::enable_if_t<std::is_same_v<std::remove_const_t<M>, ModelArch>> fields(V& v, M& m) {
  v(m.id), v(m.name), v(m.hf_id), v(m.aliases), v(m.family), v(m.layers), v(m.hidden_size);
  v(m.intermediate_size), v(m.attention_heads), v(m.kv_heads), v(m.head_dim), v(m.vocab_size);
  v(m.tied_embeddings), v(m.mlp), v(m.norm), v(m.norms_per_layer), v(m.qkv_bias), v(m.o_bias);
  v(m.mlp_bias), v(m.learned_positions), v(m.experts), v(m.causal_lm), v(m.experts_per_token);
  v(m.max_context), v(m.published_params), v(m.published_params_exact), v(m.params_only), v(m.qk_norm);
  v(m.first_dense_layers), v(m.dense_intermediate_size), v(m.shared_experts), v(m.router_bias);
  v(m.q_lora_rank), v(m.kv_lora_rank), v(m.qk_nope_head_dim), v(m.qk_rope_head_dim), v(m.v_head_dim);
  v(m.sliding_window), v(m.global_every);
}

template <class V, class O>
std::enable_if_t<std::is_same_v<std::remove_const_t<O>, Offer>> fields(V& v, O& o) {
  v(o.id), v(o.provider), v(o.gpu), v(o.gpus), v(o.region), v(o.vcpus), v(o.ram_gib), v(o.per_gpu_hour);
  v(o.spot_preemptions_per_hour), v(o.interconnect_gbps), v(o.network_gbps), v(o.spot_low), v(o.spot_high);
  v(o.spot_zones), v(o.country), v(o.where);
}

template <class V, class P>
std::enable_if_t<std::is_same_v<std::remove_const_t<P>, Provider>> fields(V& v, P& p) {
  v(p.id), v(p.name), v(p.currency), v(p.prices_as_of), v(p.source), v(p.billing_increment_seconds);
  v(p.minimum_billed_seconds), v(p.startup_seconds), v(p.storage_per_gb_month), v(p.egress_per_gb);
  v(p.tax_rate), v(p.tax_basis), v(p.country), v(p.offers), v(p.where);
}

template <class V, class F>
std::enable_if_t<std::is_same_v<std::remove_const_t<F>, FxTable>> fields(V& v, F& f) {
  v(f.as_of), v(f.base), v(f.per_base), v(f.where);
}

template <class V, class S>
std::enable_if_t<std::is_same_v<std::remove_const_t<S>, SourceLocation>> fields(V& v, S& s) {
  v(s.path), v(s.line), v(s.column);
}

template <class V, class C>
std::enable_if_t<std::is_same_v<std::remove_const_t<C>, Catalog>> fields(V& v, C& c) {
  v(c.gpus), v(c.models), v(c.providers), v(c.fx);
}

template <class T>
constexpr bool kPlain = std::is_arithmetic_v<T> || std::is_enum_v<T>;

struct Writer {
  std::string out;
  template <class T>
  std::enable_if_t<kPlain<T>> operator()(const T& x) {
    out.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  void count(std::size_t n) { (*this)(static_cast<std::uint32_t>(n)); }
  void operator()(const std::string& s) {
    count(s.size());
    out += s;
  }
  template <class T>
  void operator()(const std::optional<T>& o) {
    (*this)(o.has_value());
    if (o) (*this)(*o);
  }
  template <class T, std::size_t N>
  void operator()(const std::array<T, N>& a) {
    for (const T& x : a) (*this)(x);
  }
  template <class T>
  void operator()(const std::vector<T>& items) {
    count(items.size());
    for (const T& x : items) (*this)(x);
  }
  void operator()(const std::map<std::string, double>& m) {
    count(m.size());
    for (const auto& [k, x] : m) (*this)(k), (*this)(x);
  }
  template <class T>
  std::enable_if_t<!kPlain<T>> operator()(const T& x) {
    fields(*this, x);
  }
};

struct Reader {
  const char* at;
  const char* end;
  void need(std::size_t n) {
    if (static_cast<std::size_t>(end - at) < n) throw std::logic_error("embedded catalog image is truncated");
  }
  template <class T>
  std::enable_if_t<kPlain<T>> operator()(T& x) {
    need(sizeof x);
    std::memcpy(&x, at, sizeof x);
    at += sizeof x;
  }
  std::uint32_t count() {
    std::uint32_t n = 0;
    (*this)(n);
    return n;
  }
  void operator()(std::string& s) {
    const std::uint32_t n = count();
    need(n);
    s.assign(at, n);
    at += n;
  }
  template <class T>
  void operator()(std::optional<T>& o) {
    bool has = false;
    (*this)(has);
    if (!has) return o.reset();
    (*this)(o.emplace());
  }
  template <class T, std::size_t N>
  void operator()(std::array<T, N>& a) {
    for (T& x : a) (*this)(x);
  }
  template <class T>
  void operator()(std::vector<T>& items) {
    // Every element takes at least one byte: a count past the bytes left is a broken image
    // (a forged or torn cache file), refused before it can size an allocation.
    const std::uint32_t n = count();
    need(n);
    items.resize(n);
    for (T& x : items) (*this)(x);
  }
  void operator()(std::map<std::string, double>& m) {
    for (std::uint32_t n = count(); n > 0; --n) {
      std::string k;
      (*this)(k);
      (*this)(m[k]);
    }
  }
  template <class T>
  std::enable_if_t<!kPlain<T>> operator()(T& x) {
    fields(*this, x);
  }
};

}  // namespace

std::string catalog_to_blob(const Catalog& c) {
  Writer w;
  w(kMagic), w(kVersion);
  w(c);
  return std::move(w.out);
}

Catalog catalog_from_blob(const char* data, std::size_t size) {
  Reader r{data, data + size};
  std::uint32_t magic = 0, version = 0;
  r(magic), r(version);
  if (magic != kMagic || version != kVersion) throw std::logic_error("embedded catalog image is from another gpuplan version");
  Catalog c;
  r(c);
  if (r.at != r.end) throw std::logic_error("embedded catalog image has trailing bytes");
  return c;
}

}  // namespace gpuplan::io
