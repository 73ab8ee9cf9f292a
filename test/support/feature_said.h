/* Reading the CPU feature lines of a QMM_VERBOSE=1 log. A file of its own,
 * apart from testlib, which needs the whole library: a test built from
 * platform/ alone can read them too. */
#ifndef QMM_TEST_FEATURE_SAID_H
#define QMM_TEST_FEATURE_SAID_H

/* Whether, in the log, the line about CPU feature `name`
 * ("qmm: cpu feature <name> <state>") says exactly `state`: the whole rest of
 * the line, so that "present" does not match a longer state beginning so. */
int test_feature_said(const char *log, const char *name, const char *state);

#endif
