// Opening a part's card in place, from a search row, an RFQ or a created draft: the view calls
// describe_part through the host, shows a loading state meanwhile, and offers the way back.
import { callTool } from "../calls";
import { h } from "../dom";
import type { DescribedPart } from "../types";
import { backButton, failure, loading, show, stillShown } from "../widgets";
import { type Back, partCard } from "./part";

export async function openPart(id: string, back: Back): Promise<void> {
  const ticket = show(
    h("div", { class: "screen" }, backButton(back.label, back.run), loading("Loading the part…")),
    {
      goBack: back.run,
    },
  );
  try {
    const data = await callTool<DescribedPart>("describe_part", { id });
    if (!stillShown(ticket)) return;
    const { node, focus } = partCard(data, back);
    show(node, { goBack: back.run, focus });
  } catch (error) {
    if (!stillShown(ticket)) return;
    show(
      h(
        "div",
        { class: "screen" },
        backButton(back.label, back.run),
        failure("Could not open the part", error instanceof Error ? error.message : String(error), [
          { label: "Try again", run: () => void openPart(id, back), primary: true },
        ]),
      ),
      { goBack: back.run },
    );
  }
}
