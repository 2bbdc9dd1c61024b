/* The mock's logging: nodelet/log.h's structured klog lines, with a
 * verbosity of the mock's own (--v), so that the mock embedded in
 * nodelet-scenario stays as quiet as its options say whatever the agent's
 * -v is. MOCK_LOG_ERROR(err, msg, pairs...) as klog.ErrorS. */
#ifndef MOCK_LOG_H
#define MOCK_LOG_H

#include <nodelet/log.h>

extern nl_log_domain mock_log_domain;

#define MOCK_LOG_V(level, msg, ...) NL_LOG_DV(&mock_log_domain, level, msg, __VA_ARGS__)
#define MOCK_LOG_ENABLED(level) nl_log_domain_enabled(&mock_log_domain, level)
#define MOCK_LOG_ERROR(err, msg, ...) NL_LOG_ERROR(err, msg, __VA_ARGS__)
#define MOCK_LOG_WARN(msg, ...) NL_LOG_WARN(msg, __VA_ARGS__)

#endif
