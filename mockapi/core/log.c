/* The mock's log domain (core/log.h); the logger is client/core's. */
#include "log.h"

nl_log_domain mock_log_domain = NL_LOG_DOMAIN_INIT;
