// The libpq entry points the PostgreSQL ledger uses, loaded with dlopen on first use instead
// of linked. Linking libpq made every gpuplan run map and relocate it and its twenty
// dependencies (OpenSSL, Kerberos, LDAP, GnuTLS...): ~4 ms and ~390 page faults before main,
// for a store most runs never touch. Each function here has libpq's own signature (from
// libpq-fe.h) and forwards to the library's; postgres_ledger.cpp is written against libpq as usual.
#include <dlfcn.h>
#include <libpq-fe.h>

#include <string>

#include "gpuplan/error.hpp"

namespace {

constexpr const char* kLibpq = "libpq.so.5";

void* libpq() {
  static std::string why;
  static void* handle = [] {
    void* h = ::dlopen(kLibpq, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = ::dlerror();
      why = e ? e : "not found";
    }
    return h;
  }();
  if (!handle)
    throw gpuplan::InputError({kLibpq, 0, 0}, "ledger",
                              "a PostgreSQL ledger needs libpq (Debian/Ubuntu: apt install libpq5): " + why);
  return handle;
}

template <class F>
F entry(const char* name) {
  void* f = ::dlsym(libpq(), name);
  if (!f) throw gpuplan::InputError({kLibpq, 0, 0}, "ledger", std::string("libpq has no ") + name + ": too old a libpq");
  return reinterpret_cast<F>(f);
}

}  // namespace

// One forwarding definition per entry point: the library's function is looked up once.
#define GPUPLAN_LIBPQ(ret, name, params, args)        \
  ret name params {                                   \
    static const auto f = entry<ret(*) params>(#name); \
    return f args;                                    \
  }

extern "C" {
GPUPLAN_LIBPQ(PGconn*, PQconnectdbParams, (const char* const* keywords, const char* const* values, int expand_dbname),
              (keywords, values, expand_dbname))
GPUPLAN_LIBPQ(ConnStatusType, PQstatus, (const PGconn* conn), (conn))
GPUPLAN_LIBPQ(char*, PQerrorMessage, (const PGconn* conn), (conn))
GPUPLAN_LIBPQ(void, PQfinish, (PGconn * conn), (conn))
GPUPLAN_LIBPQ(PGresult*, PQexec, (PGconn * conn, const char* query), (conn, query))
GPUPLAN_LIBPQ(PGresult*, PQexecParams,
              (PGconn * conn, const char* command, int n, const Oid* types, const char* const* values, const int* lengths,
               const int* formats, int result_format),
              (conn, command, n, types, values, lengths, formats, result_format))
GPUPLAN_LIBPQ(int, PQsendQueryParams,
              (PGconn * conn, const char* command, int n, const Oid* types, const char* const* values, const int* lengths,
               const int* formats, int result_format),
              (conn, command, n, types, values, lengths, formats, result_format))
GPUPLAN_LIBPQ(int, PQsetSingleRowMode, (PGconn * conn), (conn))
GPUPLAN_LIBPQ(PGresult*, PQgetResult, (PGconn * conn), (conn))
GPUPLAN_LIBPQ(int, PQputCopyData, (PGconn * conn, const char* buffer, int nbytes), (conn, buffer, nbytes))
GPUPLAN_LIBPQ(int, PQputCopyEnd, (PGconn * conn, const char* errormsg), (conn, errormsg))
GPUPLAN_LIBPQ(ExecStatusType, PQresultStatus, (const PGresult* res), (res))
GPUPLAN_LIBPQ(char*, PQresultErrorMessage, (const PGresult* res), (res))
GPUPLAN_LIBPQ(int, PQntuples, (const PGresult* res), (res))
GPUPLAN_LIBPQ(char*, PQgetvalue, (const PGresult* res, int tup_num, int field_num), (res, tup_num, field_num))
GPUPLAN_LIBPQ(char*, PQcmdTuples, (PGresult * res), (res))
GPUPLAN_LIBPQ(void, PQclear, (PGresult * res), (res))
GPUPLAN_LIBPQ(char*, PQresultErrorField, (const PGresult* res, int fieldcode), (res, fieldcode))
}
