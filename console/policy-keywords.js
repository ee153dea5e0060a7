// The keywords of each locale of the policy language, for highlighting only. The service has no
// endpoint that lists them, so this is a copy of the lexer's tables (src/language/locales/*.ts,
// docs/language.md §9); test/console/console-policies.test.ts fails when the two differ.
// Spellings of several words match with any spaces or tabs between the words. The time-limit
// words of `Await … within 48 hours` are left out: the lexer reads them as keywords only there.

export const POLICY_KEYWORDS = {
  'en-US': {
    caseInsensitive: true,
    germanAsciiSpellings: false,
    spellings: [
      'Await', 'Bool', 'Define', 'Fail with', 'Float', 'For each', 'If', 'Int', 'Let', 'List of', 'Match', 'Module', 'Otherwise',
      'Otherwise if', 'Return', 'Rule', 'Step', 'Text', 'When', 'Workflow', 'and', 'as', 'as one of', 'at least', 'at most', 'be',
      'between', 'compensate with', 'contains', 'divided by', 'false', 'given', 'greater than', 'has', 'in', 'is', 'is at least',
      'is at most', 'is between', 'is greater than', 'is less than', 'is not', 'is one of', 'less than', 'minus', 'modulo', 'not',
      'one of', 'or', 'plus', 'produce', 'set to', 'times', 'true', 'with',
    ],
  },
  'de-DE': {
    caseInsensitive: true,
    germanAsciiSpellings: true,
    spellings: [
      'Ablauf', 'Bei', 'Definiere', 'Erwarte', 'Für jedes', 'Ganzzahl', 'Kommazahl', 'Liefere', 'Liste von', 'Modul', 'Prüfe', 'Regel',
      'Scheitere mit', 'Schritt', 'Sei', 'Sonst', 'Sonst wenn', 'Text', 'Wahrheitswert', 'Wenn', 'als', 'als eines von', 'auf',
      'ausgleichen mit', 'eines von', 'enthält', 'falsch', 'gegeben', 'geteilt durch', 'gleich', 'größer als', 'höchstens', 'in', 'ist',
      'ist eines von', 'ist größer als', 'ist höchstens', 'ist kleiner als', 'ist mindestens', 'ist nicht', 'ist zwischen',
      'kleiner als', 'liefert', 'mal', 'mindestens', 'minus', 'mit', 'modulo', 'nicht', 'oder', 'plus', 'und', 'wahr', 'zwischen',
    ],
  },
  'zh-CN': {
    caseInsensitive: false,
    germanAsciiSpellings: false,
    spellings: [
      '不是', '与', '中', '为', '为以下之一', '乘以', '产出', '介于', '令', '假', '其中', '减去', '列表', '加上', '包含', '匹配', '取模', '否则',
      '否则如果', '含有', '在', '大于', '如果', '定义', '对于每个', '小于', '小数', '属于', '布尔', '并且', '当', '或者', '报错', '整数', '文本',
      '是', '模块', '步骤', '流程', '真', '等待', '给定', '至多', '至少', '补偿', '规则', '设为', '返回', '除以', '非',
    ],
  },
};

/** The table's entry for a stored locale tag (`en-US`, `de-de`, `zh_CN`…), or null. */
export function keywordsOfLocale(locale) {
  const wanted = String(locale ?? '').replace('_', '-').toLowerCase();
  const tag = Object.keys(POLICY_KEYWORDS).find((known) => known.toLowerCase() === wanted || known.slice(0, 2).toLowerCase() === wanted);
  return tag ? POLICY_KEYWORDS[tag] : null;
}
