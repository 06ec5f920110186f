#include "CCurl.h"

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
