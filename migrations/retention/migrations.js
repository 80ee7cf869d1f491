import m0000 from './0000_init.sql';
import journal from './meta/_journal.json';

export default {
  journal,
  migrations: {
    m0000,
  },
};
