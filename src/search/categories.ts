// Categories as a part's text and a category filter see them: each with the names of every
// category above it (through parentId), and a filter's categories with every one below.
import type { Category } from "../api/schemas";
import type { Searchable } from "./match";

/** Levels of parent categories looked up above the categories found on parts. */
export const MAX_CATEGORY_DEPTH = 8;

/** A category with its name and the names of every category above it, for a part's text. */
export interface CategoryEntry {
  record: Category;
  names: string[];
}

/**
 * One entry per category while the names above it stay the same: rankRecords and wordMatch keep
 * folded words by object and by `fields` function, so a category is folded once, not on every
 * search (a parent learnt later makes a new entry).
 */
const categoryEntries = new WeakMap<Category, CategoryEntry>();

export function categoryEntriesOf(categories: readonly Category[]): CategoryEntry[] {
  const byId = new Map(categories.map((category) => [category.id, category]));
  return categories.map((category) => {
    const names = ancestry(category, byId).map((each) => each.name);
    let entry = categoryEntries.get(category);
    if (
      entry === undefined ||
      entry.names.length !== names.length ||
      entry.names.some((name, i) => name !== names[i])
    ) {
      entry = { record: category, names };
      categoryEntries.set(category, entry);
    }
    return entry;
  });
}

export const categoryEntryFields = (entry: CategoryEntry): Searchable => ({ keys: [], names: entry.names });

/** A category's own name, without those above it. */
export const categoryOwnName = (category: Category): Searchable => ({ keys: [], names: [category.name] });

/** A category and every one above it, nearest first (a loop in the data ends the walk). */
export function ancestry(category: Category, byId: ReadonlyMap<string, Category>): Category[] {
  const chain = [category];
  for (let parent = byId.get(category.parentId ?? ""); parent && !chain.includes(parent); ) {
    chain.push(parent);
    parent = byId.get(parent.parentId ?? "");
  }
  return chain.slice(0, MAX_CATEGORY_DEPTH + 1);
}

/** Category ids with every known category below them. */
export function withDescendants(ids: readonly string[], categories: readonly Category[]): string[] {
  const byId = new Map(categories.map((category) => [category.id, category]));
  const wanted = new Set(ids);
  const below = categories.filter((category) => ancestry(category, byId).some((each) => wanted.has(each.id)));
  return [...new Set([...ids, ...below.map((category) => category.id)])];
}
