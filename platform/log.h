/* Diagnostics on stderr, only when QMM_VERBOSE=1: the library never speaks
 * otherwise, and never on stdout. */
#ifndef QMM_LOG_H
#define QMM_LOG_H

int qmm_verbose(void);
void qmm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
