// Only the header matters: LLVMFuzzerRunDriver is defined by libFuzzer's runtime.
#include "CFuzzDriver.h"
