// The question as its sources put it, in their language: what a planner renders for a question
// asked in one language about a topic the web covers in another (the plan's translations). The
// grounded planner answers with these for the real-page world's cross-language questions.
export const REAL_TRANSLATIONS = new Map<string, { language: string; question: string }[]>([
  ['Warum wurde der Regierungschef der Britischen Jungferninseln in den USA festgenommen?', [{ language: 'en', question: 'Why was the premier of the British Virgin Islands arrested in the United States?' }]],
  ['Was unternimmt Microsoft, um seinen CO2-Fußabdruck zu verringern?', [{ language: 'en', question: 'What is Microsoft doing to reduce its carbon footprint?' }]],
  ['¿Por qué hubo apagones en California durante la ola de calor?', [{ language: 'en', question: 'Why were there blackouts in California during the heat wave?' }]],
  ['¿Cómo se cuidan las hortensias para que florezcan?', [{ language: 'en', question: 'How do you care for hydrangeas so that they bloom?' }]],
  ['Comment mesurer son pourcentage de graisse corporelle ?', [{ language: 'en', question: 'How do you measure your body fat percentage?' }]],
  ["Pourquoi l'accès à Wikipédia a-t-il été rétabli en Turquie ?", [{ language: 'en', question: 'Why was access to Wikipedia restored in Turkey?' }]],
]);
