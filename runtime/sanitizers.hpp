#pragma once
// Which sanitizer this translation unit is compiled with, from the compiler's own signal, so that the
// fiber annotations (asan.hpp, tsan.hpp) are on whenever the sanitizer is, whether the build used
// -DKPN_SANITIZE=... or a user's plain -fsanitize=... (GCC defines __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__; Clang answers __has_feature).

#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(KPN_ASAN)
#define KPN_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(KPN_TSAN)
#define KPN_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__) && !defined(KPN_ASAN)
#define KPN_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(KPN_TSAN)
#define KPN_TSAN 1
#endif
