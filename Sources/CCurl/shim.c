#include "CCurl.h"

#include <pthread.h>
#include <stdlib.h>

CURLcode rb_easy_setopt_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode rb_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode rb_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
  return curl_easy_setopt(handle, option, value);
}

CURLcode rb_easy_setopt_data_callback(CURL *handle, CURLoption option, rb_data_callback cb) {
  return curl_easy_setopt(handle, option, cb);
}

CURLcode rb_easy_setopt_xferinfo_callback(CURL *handle, rb_xferinfo_callback cb) {
  return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, cb);
}

static int rb_debug_function(CURL *handle, curl_infotype type, char *data, size_t size, void *userptr) {
  (void)handle;
  if (type == CURLINFO_HEADER_OUT && userptr != NULL) {
    const struct rb_header_out_target *target = userptr;
    target->callback(data, size, target->userdata);
  }
  return 0;
}

CURLcode rb_easy_set_header_out(CURL *handle, const struct rb_header_out_target *target) {
  CURLcode code = curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, rb_debug_function);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_DEBUGDATA, (void *)target);
  if (code == CURLE_OK) code = curl_easy_setopt(handle, CURLOPT_VERBOSE, 1L);
  return code;
}

CURLcode rb_easy_getinfo_long(CURL *handle, CURLINFO info, long *out) {
  return curl_easy_getinfo(handle, info, out);
}

CURLcode rb_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *out) {
  return curl_easy_getinfo(handle, info, out);
}

CURLcode rb_easy_getinfo_string(CURL *handle, CURLINFO info, const char **out) {
  return curl_easy_getinfo(handle, info, out);
}

CURLcode rb_easy_getinfo_slist(CURL *handle, CURLINFO info, struct curl_slist **out) {
  return curl_easy_getinfo(handle, info, out);
}

struct rb_cookie_share {
  CURLSH *share;
  pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void rb_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *userptr) {
  (void)handle;
  (void)access;  // shared or single: one mutex serves both (curl holds these for moments)
  struct rb_cookie_share *share = userptr;
  if (data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&share->locks[data]);
}

static void rb_share_unlock(CURL *handle, curl_lock_data data, void *userptr) {
  (void)handle;
  struct rb_cookie_share *share = userptr;
  if (data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&share->locks[data]);
}

struct rb_cookie_share *rb_cookie_share_new(void) {
  struct rb_cookie_share *share = calloc(1, sizeof *share);
  if (share == NULL) return NULL;
  share->share = curl_share_init();
  if (share->share == NULL) {
    free(share);
    return NULL;
  }
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share->locks[i], NULL);
  curl_share_setopt(share->share, CURLSHOPT_LOCKFUNC, rb_share_lock);
  curl_share_setopt(share->share, CURLSHOPT_UNLOCKFUNC, rb_share_unlock);
  curl_share_setopt(share->share, CURLSHOPT_USERDATA, (void *)share);
  curl_share_setopt(share->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
  return share;
}

CURLSH *rb_cookie_share_handle(struct rb_cookie_share *share) { return share->share; }

void rb_cookie_share_free(struct rb_cookie_share *share) {
  if (share == NULL) return;
  curl_share_cleanup(share->share);
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
  free(share);
}

CURLMcode rb_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
}

int rb_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
  int pending = 0;
  CURLMsg *msg;
  while ((msg = curl_multi_info_read(multi, &pending)) != NULL) {
    if (msg->msg == CURLMSG_DONE) {
      *easy = msg->easy_handle;
      *result = msg->data.result;
      return 1;
    }
  }
  return 0;
}

const long rb_http_version_2tls = CURL_HTTP_VERSION_2TLS;
const long rb_auth_digest = (long)CURLAUTH_DIGEST;
const size_t rb_write_pause = CURL_WRITEFUNC_PAUSE;
const int rb_xferinfo_abort = 1;
const int rb_pause_all = CURLPAUSE_ALL;
const int rb_pause_cont = CURLPAUSE_CONT;
