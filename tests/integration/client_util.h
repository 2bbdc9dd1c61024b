/* Shared by the client library's integration tests. */
#ifndef NL_TEST_CLIENT_UTIL_H
#define NL_TEST_CLIENT_UTIL_H

#include <nodelet/client.h>
#include <nodelet/clock.h>

/* A client for the server at url (plain HTTP, no credentials) on clock
 * (NULL: the real one), rate-limited to qps (negative: unlimited). Fails
 * the running test fatally when it cannot be made. Free with
 * nl_client_free. */
nl_client *nl_test_client_at(const char *url, nl_clock *clock, double qps);

#endif
