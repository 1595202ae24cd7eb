#include <sqlite3.h>
#include "CSQLiteConfig.h"

int wopi_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
