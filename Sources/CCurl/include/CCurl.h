#ifndef REQBENCH_CCURL_H
#define REQBENCH_CCURL_H

#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call.
// One typed wrapper per argument kind.

typedef size_t (*rb_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*rb_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                    curl_off_t ultotal, curl_off_t ulnow);
/// What a request head curl sent is handed to: `data` and `size` as curl gives them.
typedef void (*rb_header_out_callback)(const char *data, size_t size, void *userdata);
struct rb_header_out_target {
  rb_header_out_callback callback;
  void *userdata;
};

CURLcode rb_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode rb_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode rb_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode rb_easy_setopt_data_callback(CURL *handle, CURLoption option, rb_data_callback cb);
CURLcode rb_easy_setopt_xferinfo_callback(CURL *handle, rb_xferinfo_callback cb);
/// Turns on CURLOPT_VERBOSE with a CURLOPT_DEBUGFUNCTION that hands only the request heads curl
/// sends (CURLINFO_HEADER_OUT) to `target` (which must outlive the transfer): curl's text and
/// the data in and out are dropped here in C, so a large transfer makes no call into Swift per
/// chunk.
CURLcode rb_easy_set_header_out(CURL *handle, const struct rb_header_out_target *target);

CURLcode rb_easy_getinfo_long(CURL *handle, CURLINFO info, long *out);
CURLcode rb_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *out);
CURLcode rb_easy_getinfo_string(CURL *handle, CURLINFO info, const char **out);

CURLcode rb_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **out);

/// A share of curl's cookie store (CURLSHOPT_SHARE with CURL_LOCK_DATA_COOKIE) with its lock
/// callbacks: one pthread mutex per kind of data curl locks, so the engine thread's transfers
/// and another thread reading or editing the jar (CURLOPT_COOKIELIST, CURLINFO_COOKIELIST on an
/// easy handle of its own) never touch the store at once. NULL when out of memory.
struct rb_cookie_share;
struct rb_cookie_share *rb_cookie_share_new(void);
/// The CURLSH to attach with CURLOPT_SHARE.
CURLSH *rb_cookie_share_handle(struct rb_cookie_share *share);
/// Frees the share; every easy handle must have been detached (CURLOPT_SHARE NULL) before.
void rb_cookie_share_free(struct rb_cookie_share *share);

CURLMcode rb_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// CURLMsg flattened: returns 1 and fills `easy` and `result` when a transfer finished,
/// 0 when the queue is empty.
int rb_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

/// Constants that Swift sees as macros it cannot import.
extern const long rb_http_version_2tls;
extern const long rb_auth_digest;
extern const size_t rb_write_pause;
extern const int rb_xferinfo_abort;
/// curl_easy_pause's bitmasks: hold a transfer still both ways, and let it go on.
extern const int rb_pause_all;
extern const int rb_pause_cont;

#endif
