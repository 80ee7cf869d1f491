/**
 * Targets that rightly equal the English source: loanwords and symbols each language writes the
 * same way. Every entry must still occur (see the last test), so the list cannot hide anything.
 */
export const SAME_AS_ENGLISH: Record<'fr' | 'zh-Hans' | 'zh-Hant' | 'it' | 'es' | 'ru', readonly string[]> = {
  fr: [
    'Action',
    'Actions',
    'Agent',
    'Agents',
    'Conversation',
    'Description',
    'GPU',
    'Messages',
    'Notifications',
    'Participants',
    'Session',
  ],
  'zh-Hans': ['CPU', 'GPU', 'MB'],
  'zh-Hant': ['CPU', 'GPU', 'MB'],
  it: ['CPU', 'File', 'GPU', 'Host', 'MB', 'Password'],
  es: ['CPU', 'GPU', 'MB'],
  ru: [],
};
