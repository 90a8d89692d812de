#pragma once
// KPN_EXPORT marks what libkpn exports: the classes and functions that programs, plugins (process kinds)
// and policies written outside the library call. The library is compiled with -fvisibility=hidden and
// -fvisibility-inlines-hidden (CMakeLists.txt), so everything else (the run's internals, the loader's
// helpers, every instantiation of a standard, fmt, spdlog or yaml-cpp template) stays inside libkpn: the
// dynamic symbol table holds the API and nothing more, calls inside the library bind directly, and no
// program can come to depend on an internal by accident.
//
// On a class, it exports the members defined in the library, its vtable and its typeinfo (an exception
// thrown by libkpn is caught by type in a program only if its typeinfo is exported). The test suite and
// the benchmarks link the layers' objects directly (they check internals), so only a program linked
// against libkpn.so (kpn-run, the examples, tests/consumer) proves the exported set complete.

#if defined(__GNUC__)
#define KPN_EXPORT __attribute__((visibility("default")))
#else
#define KPN_EXPORT
#endif
