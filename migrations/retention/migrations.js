import m0000 from './0000_init.sql';
import m0001 from './0001_catalog_figures.sql';
import m0002 from './0002_upload_lease_agent.sql';
import m0003 from './0003_fleet_backlog.sql';
import journal from './meta/_journal.json';

export default {
  journal,
  migrations: {
    m0000,
    m0001,
    m0002,
    m0003,
  },
};
