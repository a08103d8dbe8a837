// Relevance weighs the question's words by what the session's own searches found: the subject every
// result shares weighs little, the aspect few have much. The counts must not depend on timing:
// neither on which searches had answered by the time a batch is fetched, nor on which pages had
// been fetched by then (a fetch replaces a source's title and snippet with its page's own).
import { describe, expect, it } from 'vitest';
import { foundFactor, relevanceScore } from '../src/report/relevance';
import { foundUpTo, type FoundSource } from '../src/report/words';

const question = 'What are the most common mistakes Python developers make?';
const plan = ['common mistakes Python developers', 'Python pitfalls beginners'];

function found(query: string, title: string, snippet: string): FoundSource {
  return { query, title, snippet, found_as: `${title}\n${snippet}` };
}

const results = (): FoundSource[] => [
  found(plan[0], 'The 10 most common mistakes Python developers make', 'Mistakes in Python code that even experienced developers make.'),
  found(plan[0], 'Python high-level API for Golem', 'A Python library for developers building on the Golem network.'),
  found(plan[0], 'Managing Python environments', 'How Python developers manage virtual environments and packages.'),
  found(plan[1], 'Python pitfalls for beginners', 'Beginners meet these pitfalls in Python first.'),
  found(plan[1], 'Learning Python: a guide', 'Python for beginners: variables, loops and functions.'),
  found(plan[1], 'Python 3.12 release notes', 'What is new in Python 3.12.'),
];

describe('relevance weighed by what the searches found', () => {
  it('weighs the subject every result shares little and the aspect few have much', () => {
    const sources = results();
    const counts = foundUpTo(question, plan, sources, sources);
    expect(counts.results).toBe(6);
    expect(foundFactor('python', counts)).toBeLessThan(0.05);
    expect(foundFactor('mistak', counts)).toBeGreaterThan(foundFactor('python', counts) * 5);
  });

  it('lets a page about the subject that never says what is asked fall behind one that does', () => {
    const sources = results();
    const counts = foundUpTo(question, plan, sources, sources);
    const offAspect = 'Managing Python environments. Python developers use virtual environments, pip and conda to keep the packages of each Python project apart. '.repeat(4);
    const onTopic = 'Common Python mistakes. The most common mistake Python developers make is a mutable default argument; another common mistake is misusing class variables. '.repeat(4);
    const plain = relevanceScore(offAspect, [question, ...plan]);
    const weighed = relevanceScore(offAspect, [question, ...plan], '', counts);
    expect(weighed).toBeLessThan(plain);
    expect(weighed).toBeLessThan(0.2);
    expect(relevanceScore(onTopic, [question, ...plan], '', counts)).toBeGreaterThan(0.5);
  });

  it('counts what was found up to a batch the same whichever pages were fetched and searches answered by then', () => {
    const sources = results();
    const batch = sources.slice(0, 3);
    const before = foundUpTo(question, plan, sources.slice(0, 3), batch);
    // Later searches registered their sources, and a fetch replaced an earlier page's title and snippet.
    Object.assign(sources[1], { title: 'yapapi — Python high-level API for Golem: common mistakes', snippet: 'Mistakes, mistakes.' });
    expect(foundUpTo(question, plan, sources, batch)).toEqual(before);
  });
});
