/* The sections of test_amx_model that test the model itself; each returns
 * its number of checks (failures go to test_failures). */
#ifndef QMM_TEST_AMX_MODEL_H
#define QMM_TEST_AMX_MODEL_H

/* TDPBSSD and the loads and stores around it against a reference written
 * from the SDM's pseudocode, on random trials; the state's life cycle. */
long model_self_test(void);

/* What the hardware faults on, the model aborts on, each in a child. */
long model_fault_tests(void);

/* The model against the instructions, bit for bit, where qmm grants AMX. */
long model_hardware_comparison(void);

#endif
