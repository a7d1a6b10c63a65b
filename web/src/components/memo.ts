import { Component, type FunctionComponent, h } from 'preact';

/**
 * A component that re-renders only when a prop changed (shallow), like React's memo, without pulling in
 * preact/compat. Chat messages use it: a finished message never re-renders while another one streams.
 */
export function memo<P extends object>(render: FunctionComponent<P>) {
  return class Memo extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      const previous = this.props as Record<string, unknown>;
      const incoming = next as Record<string, unknown>;
      for (const key in incoming) if (incoming[key] !== previous[key]) return true;
      for (const key in previous) if (!(key in incoming)) return true;
      return false;
    }
    override render(props: P) {
      return h(render, props);
    }
  };
}
