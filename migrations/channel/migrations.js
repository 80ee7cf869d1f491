import m0000 from './0000_init.sql';
import m0001 from './0001_groups.sql';
import m0002 from './0002_files.sql';
import m0003 from './0003_admin_catalog_report.sql';
import m0004 from './0004_threads.sql';
import m0005 from './0005_search_index.sql';
import m0006 from './0006_deferred_search_index.sql';
import m0007 from './0007_delivery_count.sql';
import journal from './meta/_journal.json';

export default {
  journal,
  migrations: {
    m0000,
    m0001,
    m0002,
    m0003,
    m0004,
    m0005,
    m0006,
    m0007,
  },
};
