import m0000 from './0000_init.sql';
import m0001 from './0001_throttle.sql';
import m0002 from './0002_agent_description.sql';
import m0003 from './0003_agent_deletions.sql';
import m0004 from './0004_agent_key_status.sql';
import m0005 from './0005_admins_audit.sql';
import m0006 from './0006_metrics_token.sql';
import m0007 from './0007_audit_refusal_counts.sql';
import m0008 from './0008_fleet_refusals.sql';
import m0009 from './0009_audit_names_changes.sql';
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
    m0008,
    m0009,
  },
};
