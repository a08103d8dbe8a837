// The asker's language survives the planner's guess, and a section a writer filled with a
// placeholder ("TBD", "No information yet") is finished as a stated gap, like an empty one.
import { describe, expect, it } from 'vitest';
import { detectLanguage, reconcileLanguage } from '../src/activities/prompts/language';
import { finishSections } from '../src/report/sections';

describe('the question’s language', () => {
  it.each([
    ['uk', 'Які наслідки війни для енергетики України?', 'uk'],
    ['fa', 'آلودگی هوا در تهران چگونه است؟', 'fa'],
    ['en', '北京的空气质量如何？', 'zh'],
    ['ru', 'What is the air quality in Delhi?', 'en'],
    [undefined, 'Wie wirkt sich die Wärmepumpe auf die Stromrechnung aus?', 'de'],
    [undefined, 'Quels sont les effets de la pollution sur la santé ?', 'fr'],
    [undefined, '¿Cuáles son las causas del smog en Delhi?', 'es'],
    [undefined, 'What are the causes of smog in Delhi?', 'en'],
    ['pt-BR', 'Qual é o impacto do desmatamento na Amazônia?', 'pt-br'],
  ])('planner said %s for %s → %s', (given, question, expected) => {
    expect(reconcileLanguage(given, question)).toBe(expected);
  });

  it('reads a Latin-script question by its function words', () => {
    expect(detectLanguage('Qual é o impacto do desmatamento na Amazônia?')).toBe('pt');
    expect(detectLanguage('Hoe werkt een warmtepomp en waarom is het duur?')).toBe('nl');
  });
});

describe('a finished section has no placeholder', () => {
  const queries = ['delhi air policy odd-even'];
  it.each(['TBD.', '_No information yet._', 'To be added', 'Lorem ipsum dolor sit amet.', 'N/A', '待定', '**Coming soon!**', '- Research in progress'])(
    '%s becomes a stated gap',
    (body) => {
      const [section] = finishSections([{ title: 'Policy', body }], { searchedQueries: queries });
      expect(section.body).toBe('**Gap:** the research looked for material on “Policy” and found nothing it could cite. Queries tried: “delhi air policy odd-even”.');
    },
  );

  it('keeps real text that merely mentions such a word', () => {
    for (const body of ['The odd-even data (TBD in 2024) showed PM2.5 at 90 [S1].', 'Pending court cases slowed the policy [S2].']) {
      expect(finishSections([{ title: 'Policy', body }], { searchedQueries: queries })[0].body).toBe(body);
    }
  });
});
