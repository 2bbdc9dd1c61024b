/* klog-style logging: "I1129 16:06:46.123456   12345 file.c:42] message".
 * Level 0 is always printed; higher levels only when -v is at least that. */
#ifndef MOCK_LOG_H
#define MOCK_LOG_H

void mock_log_set_verbosity(int v);
int mock_log_enabled(int level);
/* sev is 'I', 'W' or 'E'. */
void mock_log_at(char sev, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define MOCK_LOG_V(level, ...)                                             \
	do {                                                               \
		if (mock_log_enabled(level))                               \
			mock_log_at('I', __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)
#define MOCK_LOG_ERROR(...) mock_log_at('E', __FILE__, __LINE__, __VA_ARGS__)
#define MOCK_LOG_WARN(...) mock_log_at('W', __FILE__, __LINE__, __VA_ARGS__)

#endif
