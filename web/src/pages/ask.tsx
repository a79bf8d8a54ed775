/**
 * Ask: questions about the workspace's competitors, answered from its own events (`POST /chat`; the rule-based writer
 * without an LLM). The answer is shown as text; its citations link to the events.
 */
import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import type { Schemas } from "../api.js";
import { ErrorNote, usePageTitle } from "../components.js";
import { $api } from "../query.js";

export default function AskPage() {
  usePageTitle("Ask");
  const [conversation, setConversation] = useState<Schemas["ChatMessage"][]>([]);
  const [citations, setCitations] = useState<Schemas["ChatCitation"][]>([]);
  const [usage, setUsage] = useState<Schemas["ChatResponse"]["usage"] | null>(null);
  const chat = $api.useMutation("post", "/chat", {
    onSuccess: (answer, variables) => {
      setConversation([...variables.body.messages, answer.reply]);
      setCitations(answer.citations);
      setUsage(answer.usage);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const question = String(new FormData(form).get("question")).trim();
    if (!question) return;
    chat.mutate(
      { body: { messages: [...conversation, { role: "user" as const, content: question }].slice(-50) } },
      { onSuccess: () => form.reset() },
    );
  };
  return (
    <>
      <p>
        <Link to="/events">← Events</Link>
      </p>
      <h1>Ask about your competitors</h1>
      <p className="muted">Answers come from your workspace's events, each cited.</p>
      {conversation.length > 0 && (
        <ol className="plain conversation" aria-label="Conversation">
          {conversation.map((message, i) => (
            <li key={i} className={`message ${message.role}`}>
              <strong>{message.role === "user" ? "You" : "Rivalscope"}</strong>
              <p>{message.content}</p>
            </li>
          ))}
        </ol>
      )}
      {citations.length > 0 && (
        <section aria-labelledby="sources-title" className="card">
          <h2 id="sources-title">Events the answer draws on</h2>
          <ul className="plain">
            {citations.map((c) => (
              <li key={c.event_id}>
                <Link to={`/events/${c.event_id}`}>{c.title}</Link>
              </li>
            ))}
          </ul>
        </section>
      )}
      <form onSubmit={submit} className="stack">
        <label>
          Your question
          <textarea name="question" rows={3} maxLength={8000} required />
        </label>
        <ErrorNote error={chat.error} />
        <button type="submit" disabled={chat.isPending}>
          {chat.isPending ? "Asking…" : "Ask"}
        </button>
        {usage && (
          <p className="muted">
            {usage.chat_used} of {usage.chat_quota} answers used this month.
          </p>
        )}
      </form>
    </>
  );
}
